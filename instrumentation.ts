// Next.js calls register() once when the server starts: we fail fast on bad configuration and start background work.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { boot } = await import("./lib/boot");
  await boot();
}
