/** All data access, one named function per query, grouped by domain. */
export * from "./queries/accounts";
export * from "./queries/sites";
export * from "./queries/agent";
export * from "./queries/sandboxes";
export * from "./queries/changes";
export * from "./queries/conversations";
export * from "./queries/verification";
export * from "./queries/oauth";
export * from "./queries/rehearsals";
export * from "./queries/stalled-claims";
export * from "./queries/credentials";
export * from "./queries/jobs";
export * from "./queries/account-tokens";
export * from "./queries/uploads";
export * from "./queries/audit";
export * from "./queries/teams";
export * from "./queries/change-runs";
