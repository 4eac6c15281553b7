/**
 * The model for end-to-end runs: a local server speaking OpenAI's streaming protocol, scripted to act on two
 * sentences a person might type. Everything from the app's provider module to the site is the real path.
 */
import { startOpenAIScriptedServer, type OpenAIChatRequest, type ScriptedReply } from "../../test/openai-scripted-server";

function replyTo(request: OpenAIChatRequest): ScriptedReply {
  const userIndex = request.messages.map((m) => m.role).lastIndexOf("user");
  const said = String(request.messages[userIndex]?.content ?? "");
  const toolAnswered = request.messages.slice(userIndex + 1).some((m) => m.role === "tool");
  let match = /rename page (\d+) to "([^"]+)"/i.exec(said);
  if (match) {
    const [, id, title] = match;
    return toolAnswered
      ? { text: `Renamed page ${id} to “${title}”.` }
      : { text: "Renaming it now.", toolCalls: [{ name: "update_page", arguments: { type: "page", id: Number(id), title } }] };
  }
  match = /publish page (\d+)/i.exec(said);
  if (match) {
    return toolAnswered
      ? { text: `Page ${match[1]} is handled.` }
      : { toolCalls: [{ name: "publish_page", arguments: { type: "page", id: Number(match[1]) } }] };
  }
  return { text: "I can rename or publish a page." };
}

export const startScriptedModel = () => startOpenAIScriptedServer([...Array(200)].map(() => replyTo), { apiKey: "e2e-key" });
