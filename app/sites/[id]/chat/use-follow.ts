import { useCallback, useEffect, useRef, useState } from "react";

/** Within this many pixels of the bottom, the list follows the reply as it grows. */
const FOLLOW_SLACK_PX = 48;

/** Follow the reply while the reader is at the bottom; stop as soon as they scroll up. */
export function useFollow(messages: unknown, status: unknown) {
  const list = useRef<HTMLElement>(null);
  const [following, setFollowing] = useState(true);
  const onScroll = useCallback(() => {
    const box = list.current;
    if (!box) return;
    setFollowing(box.scrollHeight - box.scrollTop - box.clientHeight <= FOLLOW_SLACK_PX);
  }, []);
  const jumpToLatest = useCallback(() => {
    const box = list.current;
    if (box) box.scrollTop = box.scrollHeight;
    setFollowing(true);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every change of the messages and the status, which grow the list
  useEffect(() => {
    const box = list.current;
    if (box && following) box.scrollTop = box.scrollHeight;
  }, [messages, status, following]);
  return { list, following, onScroll, jumpToLatest, follow: () => setFollowing(true) };
}
