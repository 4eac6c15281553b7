import { publicAuditKey } from "@/lib/audit/keys";
import { json, route } from "@/lib/http/route";

/** The public half of the key that signs audit checkpoints: pin it with `npm run audit:verify <file> --key <publicKey>`. */
export const GET = route({ auth: "none" }, async () => json(200, publicAuditKey()));
