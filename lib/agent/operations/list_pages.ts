import { defineOperation } from "./operation";
import { listContent, listInput } from "./listing";

export default defineOperation({
  name: "list_pages",
  label: "Look through the pages",
  description:
    "List or search the site's pages (any status: published, draft, private...). Returns id, title, status, link and last change for each, newest change first. Use `search` to find a page by words in its title or content.",
  input: listInput,
  scope: "content:read",
  risk: "read",
  run: (client, input) => listContent(client, "page", input),
});
