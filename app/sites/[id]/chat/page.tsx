import { randomUUID } from "node:crypto";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { loadChatPage } from "@/lib/workflows/chat-turn";
import { currentSession } from "@/lib/auth/current";
import { recordSiteVisit } from "@/lib/teams/site-settings";
import { siteAccess } from "@/lib/teams/access";
import { can } from "@/lib/teams/roles";
import type { ChatApproval } from "./approval-context";
import { ChatPanel } from "./chat-panel";
import styles from "./chat.module.css";
import { ChatPanelMessagesOnly } from "./history";
import { relativeTime } from "@/app/relative-time";
import { ConversationList } from "./conversation-list";
import { PermissionsSummary } from "@/app/permissions-summary";

export const metadata = { title: "Chat · Sitewright" };

type Search = { c?: string | string[]; new?: string | string[] };

type ChatPageData = NonNullable<Awaited<ReturnType<typeof loadChatPage>>>;

function ConversationsNav({ data, base }: { data: ChatPageData; base: string }) {
  return (
    <nav aria-label="Conversations" className={styles.conversations}>
      {data.site.active ? (
        <Link className="button" href={`${base}?new=1`} data-testid="new-chat">
          New chat
        </Link>
      ) : null}
      <ConversationList
        base={base}
        initial={data.conversations}
        currentId={data.conversationId}
        times={Object.fromEntries(data.conversations.map((c) => [c.id, relativeTime(new Date(c.updatedAt))]))}
      />
    </nav>
  );
}

/** A site that is no longer connected: its conversations stay readable. */
function Disconnected({ data }: { data: ChatPageData }) {
  return (
    <>
      <p className="card warn" role="alert">
        This site is not connected, so the assistant cannot work on it. Its conversations stay here to read.{" "}
        <Link href={`/connect?url=${encodeURIComponent(data.site.url)}`}>Connect it again</Link> to continue; they will
        follow it.
      </p>
      <ChatPanelMessagesOnly messages={data.messages} labels={data.labels} />
    </>
  );
}

/** Whether the person approves their own turns' changes here, or someone else must (docs/teams.md). */
async function chatApproval(userId: string, siteId: string): Promise<ChatApproval> {
  const access = await siteAccess({ userId, siteId }, "read").catch(() => undefined);
  if (access && !can(access.role, "approve")) return { canApprove: false, waitsFor: "approver" };
  if (access?.site.requireSecondPerson) return { canApprove: false, waitsFor: "second-person" };
  return { canApprove: true };
}

export default async function ChatPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Search>;
}) {
  const session = await currentSession();
  const { id } = await params;
  const search = await searchParams;
  if (!session) redirect(`/login?next=${encodeURIComponent(`/sites/${id}/chat`)}`);
  const asked = typeof search.c === "string" && search.c ? search.c : undefined;
  const data = await loadChatPage({
    userId: session.userId,
    siteId: id,
    conversationId: asked,
    fresh: search.new !== undefined && !asked,
  });
  if (!data) notFound();
  await recordSiteVisit(session.user, data.site.id, session.idHash);
  if (data.site.id !== id) redirect(`/sites/${data.site.id}/chat${asked ? `?c=${encodeURIComponent(asked)}` : ""}`);
  const title = data.site.name ?? data.site.url;
  const base = `/sites/${data.site.id}/chat`;
  const current = data.conversations.find((c) => c.id === data.conversationId);
  const approval = await chatApproval(session.userId, data.site.id);

  return (
    <main className={styles.page}>
      <p>
        <Link href="/">← Your sites</Link> · <Link href={`/sites/${id}/changes/history`}>Changes</Link> ·{" "}
        <Link href={`/sites/${id}/team`}>Team</Link>
      </p>
      <h1>
        Chat about{" "}
        <a href={data.site.url} target="_blank" rel="noopener noreferrer">
          {title}
        </a>
      </h1>
      {data.site.active && data.permissions ? <PermissionsSummary permissions={data.permissions} compact /> : null}
      <div className={styles.layout}>
        <details className={styles.conversationsToggle} open>
          <summary>Conversations</summary>
          <ConversationsNav data={data} base={base} />
        </details>
        <div>
          {current ? (
            <h2 className={styles.conversationHeading}>{current.title}</h2>
          ) : (
            <h2 className="visually-hidden">New conversation</h2>
          )}
          {data.site.active ? (
            <ChatPanel
              // A new chat gets a fresh panel on every visit, even when the address did not change.
              key={data.conversationId ?? randomUUID()}
              siteId={data.site.id}
              conversationId={data.conversationId}
              initialMessages={data.messages}
              agentConfigured={data.agentConfigured}
              labels={data.labels}
              sandboxesEnabled={data.sandboxesEnabled}
              approval={approval}
            />
          ) : (
            <Disconnected data={data} />
          )}
        </div>
      </div>
    </main>
  );
}
