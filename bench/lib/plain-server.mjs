// Plain Node http, for scale: the same small JSON answer /health gives, with nothing in between. Prints its port.
import { createServer } from "node:http";

const body = JSON.stringify({
  status: "ok",
  version: "0.1.0",
  checks: { store: "ok", sandbox: "disabled", agent: "disabled" },
});
const server = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" }).end(body);
});
server.listen(0, "127.0.0.1", () => console.log(`READY ${server.address().port}`));
process.on("SIGTERM", () => process.exit(0));
