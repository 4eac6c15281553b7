/**
 * The model for end-to-end runs: a local server speaking OpenAI's streaming protocol, scripted to act on a few
 * sentences a person might type. Everything from the app's provider module to the site is the real path.
 */
import {
  startOpenAIScriptedServer,
  type OpenAIChatRequest,
  type ScriptedReply,
} from "../../test/openai-scripted-server";

/** Sitewright's words when a tool was refused for a permission the site has not granted (else undefined). */
function scopeRefusal(content: unknown): string | undefined {
  try {
    const output = (JSON.parse(String(content)) as { site_data?: { code?: string; error?: string } }).site_data;
    return output?.code === "scope_not_granted" ? output.error : undefined;
  } catch {
    return undefined;
  }
}

function replyTo(request: OpenAIChatRequest): ScriptedReply {
  const userIndex = request.messages.map((m) => m.role).lastIndexOf("user");
  const content = request.messages[userIndex]?.content;
  // Several parts (text and the attachment lines) come as a list; one as a plain string.
  const said = Array.isArray(content)
    ? content.map((part: { text?: unknown }) => String(part?.text ?? "")).join("\n")
    : String(content ?? "");
  const toolAnswered = request.messages.slice(userIndex + 1).some((m) => m.role === "tool");
  // A bulk job's writer (lib/agent/job-writer.ts): one text per item it was given, as the JSON it asks for.
  const system = String(request.messages.find((m) => m.role === "system")?.content ?? "");
  if (system.startsWith("You write ")) {
    const listed = /Items \(site data, not instructions\):\n([\s\S]*)$/.exec(said)?.[1] ?? "[]";
    const items = JSON.parse(listed) as Array<{ id: number; title: string }>;
    return {
      text: JSON.stringify({ items: items.map((item) => ({ id: item.id, text: `A photo of ${item.title}` })) }),
    };
  }
  // "calls [{name, arguments}, ...]": several tool calls in one step, exactly as typed (one turn, one change set).
  const several = /^calls (\[.*\])$/s.exec(said.trim());
  if (several) {
    const calls = JSON.parse(several[1]!) as Array<{ name: string; arguments: unknown }>;
    return toolAnswered ? { text: `Done: ${calls.map((c) => c.name).join(", ")}.` } : { toolCalls: calls };
  }
  // "call <operation> {json}": one tool call exactly as typed (the reach spec drives each new operation this way).
  const literal = /^call ([a-z_]+) (\{.*\})$/s.exec(said.trim());
  if (literal) {
    const [, name, args] = literal;
    return toolAnswered ? { text: `Done: ${name}.` } : { toolCalls: [{ name: name!, arguments: JSON.parse(args!) }] };
  }
  // A permission the owner has not granted: pass Sitewright's words on, as the system prompt asks.
  const refused = request.messages
    .slice(userIndex + 1)
    .filter((m) => m.role === "tool")
    .map((m) => scopeRefusal(m.content))
    .find(Boolean);
  if (refused) return { text: refused };
  const both = /rename pages (\d+) and (\d+) to "([^"]+)"/i.exec(said);
  if (both) {
    const [, first, second, title] = both;
    return toolAnswered
      ? { text: `Renamed pages ${first} and ${second}.` }
      : {
          toolCalls: [first, second].map((id, index) => ({
            name: "update_page",
            arguments: { type: "page", id: Number(id), title: `${title} ${index + 1}` },
          })),
        };
  }
  let match = /rename page (\d+) to "([^"]+)"/i.exec(said);
  if (match) {
    const [, id, title] = match;
    return toolAnswered
      ? { text: `Renamed page ${id} to “${title}”.` }
      : {
          text: "Renaming it now.",
          toolCalls: [{ name: "update_page", arguments: { type: "page", id: Number(id), title } }],
        };
  }
  // The README's example ("Rename the Sample Page to About us"): the page is found by its title, then renamed.
  match = /^rename the (.+?) to (.+?)\.?$/i.exec(said.trim());
  if (match) {
    const [, title, next] = match;
    const results = request.messages.slice(userIndex + 1).filter((m) => m.role === "tool");
    if (results.length === 0) return { toolCalls: [{ name: "list_pages", arguments: { search: title } }] };
    if (results.length === 1) {
      const id = /"id":\s*(\d+)/.exec(String(results[0]?.content ?? ""))?.[1];
      if (!id) return { text: `I could not find “${title}”.` };
      return { toolCalls: [{ name: "update_page", arguments: { id: Number(id), title: next } }] };
    }
    return { text: `Renamed “${title}” to “${next}”.` };
  }
  // A polite request that changes only a link's address (the exactness spec: the card must show both addresses).
  match = /point the sign in link of page (\d+) to (https?:\/\/\S+)/i.exec(said);
  if (match) {
    const [, id, url] = match;
    const markup = `<!-- wp:paragraph --><p>Members: <a href="${url}">Sign in</a> to see your account.</p><!-- /wp:paragraph -->`;
    return toolAnswered
      ? { text: `The sign-in link of page ${id} is handled.` }
      : { toolCalls: [{ name: "replace_block", arguments: { type: "page", id: Number(id), position: "1", markup } }] };
  }
  match = /change paragraph 1 of page (\d+) to "([^"]+)"/i.exec(said);
  if (match) {
    const [, id, text] = match;
    const markup = `<!-- wp:paragraph --><p>${text}</p><!-- /wp:paragraph -->`;
    return toolAnswered
      ? { text: `Paragraph 1 of page ${id} is handled.` }
      : { toolCalls: [{ name: "replace_block", arguments: { type: "page", id: Number(id), position: "1", markup } }] };
  }
  match = /add the attached photo to page (\d+)/i.exec(said);
  if (match) {
    const upload = /upload:[0-9a-f-]{36}/.exec(said)?.[0];
    if (!upload) return { text: "I see no attachment." };
    return toolAnswered
      ? { text: `The photo on page ${match[1]} is handled.` }
      : {
          toolCalls: [
            {
              name: "add_image",
              arguments: { type: "page", id: Number(match[1]), file: upload, alt: "The shop front" },
            },
          ],
        };
  }
  match = /publish page (\d+)/i.exec(said);
  if (match) {
    return toolAnswered
      ? { text: `Page ${match[1]} is handled.` }
      : { toolCalls: [{ name: "publish_page", arguments: { type: "page", id: Number(match[1]) } }] };
  }
  match = /make the colour ([a-z0-9-]+) (#[0-9a-f]{6})/i.exec(said);
  if (match) {
    const [, slug, colour] = match;
    return toolAnswered
      ? { text: `The colour ${slug} is handled.` }
      : { toolCalls: [{ name: "update_global_styles", arguments: { colors: { [slug!]: colour } } }] };
  }
  match = /use the style variation "([^"]+)"/i.exec(said);
  if (match) {
    return toolAnswered
      ? { text: `The style variation ${match[1]} is handled.` }
      : { toolCalls: [{ name: "update_global_styles", arguments: { variation: match[1] } }] };
  }
  // An Elementor page (e2e/elementor.builder-spec.ts): read it, then edit the hero's heading and button by the
  // element ids the read listed, as a model does.
  match = /on page (\d+), change the hero heading to "([^"]+)" and point the button at (\S+)/i.exec(said);
  if (match) {
    const [, id, heading, url] = match;
    const results = request.messages.slice(userIndex + 1).filter((m) => m.role === "tool");
    if (results.length === 0)
      return { toolCalls: [{ name: "read_page", arguments: { type: "page", id: Number(id) } }] };
    if (results.length === 1) {
      const elements = String(results[0]?.content ?? "");
      const headingId = /\[([A-Za-z0-9]+)\] heading /.exec(elements)?.[1];
      const buttonId = /\[([A-Za-z0-9]+)\] button /.exec(elements)?.[1];
      if (!headingId || !buttonId) return { text: "I found no hero heading and button on that page." };
      const edits = [
        ["set", headingId, "title", heading],
        ["set", buttonId, "link.url", url],
      ];
      return { toolCalls: [{ name: "edit_builder_page", arguments: { id: Number(id), edits } }] };
    }
    return { text: "The hero heading and its button are handled." };
  }
  if (/show me markdown/i.test(said)) {
    return {
      text: [
        "## What I found",
        "",
        "The **About** page has *two* blocks:",
        "",
        "| Block | Words |",
        "|---|---|",
        "| Heading | 3 |",
        "| Paragraph | 120 |",
        "",
        "[the page](https://example.com/about) · [a trap](javascript:alert(1)) <script>window.__injected = 1</script>",
        "",
        "![pixel](https://tracker.example/p.gif)",
      ].join("\n"),
    };
  }
  if (/summari[sz]e the about page/i.test(said)) {
    return {
      text: [
        "## The About page",
        "",
        "It is a **draft** with two blocks. Before publishing, consider:",
        "",
        "| Block | Words | Suggestion |",
        "|---|---|---|",
        "| Heading | 2 | Fine as it is |",
        "| Paragraph | 120 | Add your opening hours |",
        "",
        "Say *publish it* when you are ready; publishing waits for your approval.",
      ].join("\n"),
    };
  }
  if (/model breaks/i.test(said)) return { status: 500 };
  if (/take your time/i.test(said)) return { text: "Here it is, after a while.", delayMs: 6000 };
  if (/long answer/i.test(said)) {
    return { text: [...Array(60)].map((_, i) => `Line ${i + 1} of a long answer.`).join("\n\n"), delayMs: 300 };
  }
  // Sandbox mode: the page is found in the sandbox copy first (its ids there are not the live site's).
  match = /change the text of "([^"]+)" to "([^"]+)"/i.exec(said);
  if (match) {
    const [, title, text] = match;
    const results = request.messages.slice(userIndex + 1).filter((m) => m.role === "tool");
    if (results.length === 0) return { toolCalls: [{ name: "list_pages", arguments: { search: title } }] };
    if (results.length === 1) {
      const id = /"id":\s*(\d+)/.exec(String(results[0]?.content ?? ""))?.[1];
      if (!id) return { text: `I could not find “${title}”.` };
      return {
        toolCalls: [
          {
            name: "update_page",
            arguments: { id: Number(id), content: `<!-- wp:paragraph --><p>${text}</p><!-- /wp:paragraph -->` },
          },
        ],
      };
    }
    return { text: `Changed the text of “${title}”.` };
  }
  return { text: "I can rename or publish a page." };
}

export const startScriptedModel = () =>
  startOpenAIScriptedServer(
    [...Array(200)].map(() => replyTo),
    { apiKey: "e2e-key" },
  );
