import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { loadChatPage } from "@/lib/agent/chat";
import { currentSession } from "@/lib/auth/current";
import { ChatPanel } from "./chat-panel";

export const metadata = { title: "Chat · Sitewright" };

export default async function ChatPage({ params }: { params: Promise<{ id: string }> }) {
  const session = await currentSession();
  const { id } = await params;
  if (!session) redirect(`/login?next=${encodeURIComponent(`/sites/${id}/chat`)}`);
  const data = await loadChatPage({ userId: session.userId, siteId: id });
  if (!data) notFound();
  const title = data.site.name ?? data.site.url;
  return (
    <main>
      <p>
        <Link href="/">← Your sites</Link>
      </p>
      <h1>
        Chat about <a href={data.site.url}>{title}</a>
      </h1>
      {data.site.active ? (
        <ChatPanel siteId={data.site.id} conversationId={data.conversationId} initialMessages={data.messages} agentConfigured={data.agentConfigured} />
      ) : (
        <p className="card warn" role="alert">
          This site is not connected yet. Finish pairing it from <Link href="/connect">Connect a site</Link> before chatting.
        </p>
      )}
    </main>
  );
}
