/** Start, sign in to and delete sandboxes (POST/DELETE /sessions, POST /sessions/:id/login), with one error line. */
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";

async function request(method: string, path: string, body?: unknown) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = response.status === 204 ? {} : await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(json?.error?.message ?? `That did not work (HTTP ${response.status}).`);
  return json;
}

/** The current time, ticking every 30 seconds, for "5 minutes left". */
export function useNow() {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function useSandboxActions() {
  const router = useRouter();
  const [starting, setStarting] = useState(false);
  const [busyId, setBusyId] = useState<string>();
  const [error, setError] = useState<string>();
  /** Runs one action, showing its failure as the error line; `mark` says what is busy meanwhile. */
  const act = async (mark: (busy: boolean) => void, work: () => Promise<void>) => {
    mark(true);
    setError(undefined);
    try {
      await work();
    } catch (cause) {
      setError((cause as Error).message);
    } finally {
      mark(false);
    }
  };
  const busyWith = (id: string) => (busy: boolean) => setBusyId(busy ? id : undefined);
  return {
    starting,
    busyId,
    error,
    start: (siteId: string) =>
      act(setStarting, async () => {
        await request("POST", "/sessions", siteId ? { siteId } : {});
        router.refresh();
      }),
    signIn: (id: string) =>
      act(busyWith(id), async () => {
        const { login } = await request("POST", `/sessions/${id}/login`);
        window.open(login.url, "_blank", "noopener");
      }),
    remove: (id: string) =>
      act(busyWith(id), async () => {
        await request("DELETE", `/sessions/${id}`);
        router.refresh();
      }),
  };
}
