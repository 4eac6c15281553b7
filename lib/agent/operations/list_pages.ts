import { defineOperation } from "./operation";
import { listContent, listInput } from "./listing";

export default defineOperation({
  name: "list_pages",
  label: "Look through the pages",
  description:
    "List or search the site's pages (any status): id, title, status, link, last change; newest change first.",
  input: listInput,
  scope: "content:read",
  risk: "read",
  run: (client, input) => listContent(client, "page", input),
});
