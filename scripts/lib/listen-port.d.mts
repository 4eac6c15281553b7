export function option(args: string[], names: string[]): string | undefined;
export function readDotenv(root: string): Record<string, string>;
export function listenPort(input: { args?: string[]; env?: Record<string, string | undefined>; root: string }): number;
