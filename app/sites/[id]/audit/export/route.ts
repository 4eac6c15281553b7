import { route } from "@/lib/http/route";
import { exportSiteAudit } from "@/lib/teams/site-settings";

/** The site's audit chain as JSON Lines, ending with a checkpoint signed now (`npm run audit:verify` checks it). */
export const GET = route({ auth: "session" }, async ({ params, session }) => {
  const body = await exportSiteAudit(session.user, params.id!);
  return new Response(body, {
    status: 200,
    headers: {
      "Content-Type": "application/jsonl; charset=utf-8",
      "Content-Disposition": `attachment; filename="sitewright-audit-${params.id}.jsonl"`,
      "Cache-Control": "no-store",
    },
  });
});
