import { defineOperation } from "./operation";
import { listContent, listInput } from "./listing";

export default defineOperation({
  name: "list_posts",
  label: "Look through the posts",
  description:
    "List or search the site's blog posts (any status). Returns id, title, status, link and last change for each, newest change first. Use `search` to find a post by words in its title or content.",
  input: listInput,
  scope: "content:read",
  risk: "read",
  run: (client, input) => listContent(client, "post", input),
});
