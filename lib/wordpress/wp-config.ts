/**
 * Fills lib/wordpress/wp-config.template.php, the one WordPress configuration the sandbox image, the local test site
 * (scripts/site-local) and the PHPUnit bootstrap (through its PHP twin, render-wp-config.php) are written from.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";

export const WP_CONFIG_TEMPLATE = new URL("./wp-config.template.php", import.meta.url);

/** A PHP constant's value: a string or number literal, a boolean, or raw PHP code. */
export type PhpValue = string | number | boolean | { php: string };

export type WpConfigInput = {
  /** One line saying what this configuration is for. */
  purpose: string;
  /** Where the SQLite database lives (a path, or `{ php }` code that computes it). */
  dbDir: PhpValue;
  dbFile: PhpValue;
  /** The eight keys and salts: fresh random ones (default), or `{ php }` code that defines them. */
  salts?: { php: string };
  /** Constants defined after the database settings, in order; `undefined` leaves one out. */
  constants?: Record<string, PhpValue | undefined>;
  /** PHP code placed before the constants (e.g. computing the URL from the request). */
  code?: string;
};

export const SALT_NAMES = [
  "AUTH_KEY",
  "SECURE_AUTH_KEY",
  "LOGGED_IN_KEY",
  "NONCE_KEY",
  "AUTH_SALT",
  "SECURE_AUTH_SALT",
  "LOGGED_IN_SALT",
  "NONCE_SALT",
] as const;

/** A PHP single-quoted string literal. */
export function phpString(value: string): string {
  return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

export function phpValue(value: PhpValue): string {
  if (typeof value === "object") return value.php;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return String(value);
  return phpString(value);
}

function freshSalts(): string {
  return SALT_NAMES.map(
    (name) => `define( '${name}', ${phpString(randomBytes(48).toString("base64").replace(/['\\]/g, "x"))} );`,
  ).join("\n");
}

export function renderWpConfig(input: WpConfigInput): string {
  const constants = Object.entries(input.constants ?? {})
    .filter((entry): entry is [string, PhpValue] => entry[1] !== undefined)
    .map(([name, value]) => `define( '${name}', ${phpValue(value)} );`)
    .join("\n");
  const settings = [input.code?.trim(), constants].filter(Boolean).join("\n\n");
  const fill: Record<string, string> = {
    PURPOSE: input.purpose.replace(/\*\//g, "* /"),
    DB_DIR: phpValue(input.dbDir),
    DB_FILE: phpValue(input.dbFile),
    SALTS: input.salts?.php.trim() ?? freshSalts(),
    SETTINGS: settings,
  };
  return readFileSync(WP_CONFIG_TEMPLATE, "utf8").replace(/\{\{([A-Z_]+)\}\}/g, (whole, name: string) => {
    const value = fill[name];
    if (value === undefined) throw new Error(`wp-config.template.php has an unknown placeholder ${whole}`);
    return value;
  });
}
