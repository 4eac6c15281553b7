import { defineOperation } from "./operation";
import { listContent, listInput } from "./listing";

export default defineOperation({
  name: "list_posts",
  label: "Look through the posts",
  description:
    "List or search the site's blog posts (any status): id, title, status, link, last change; newest change first.",
  input: listInput,
  scope: "content:read",
  risk: "read",
  run: (client, input) => listContent(client, "post", input),
});
