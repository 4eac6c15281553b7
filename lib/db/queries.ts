/** All data access, one named function per query, grouped by domain. */
export * from "./queries/accounts";
