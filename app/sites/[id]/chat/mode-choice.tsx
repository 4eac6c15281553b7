import styles from "./chat.module.css";

export type ChatMode = "live" | "sandbox";

/** Where the turn's changes go: a sandbox (the default when sandboxes are on) or the live site. */
export function ModeChoice({
  sandboxesEnabled,
  mode,
  onChange,
}: {
  sandboxesEnabled?: boolean;
  mode: ChatMode;
  onChange(mode: ChatMode): void;
}) {
  if (!sandboxesEnabled)
    return (
      <p className="muted" data-testid="chat-mode">
        Changes go to your live site; each visible change waits for your approval.
      </p>
    );
  return (
    <fieldset className={styles.mode} data-testid="chat-mode">
      <legend>Where changes go</legend>
      <label>
        <input
          type="radio"
          name="mode"
          value="sandbox"
          checked={mode === "sandbox"}
          onChange={() => onChange("sandbox")}
        />{" "}
        Sandbox: try on a copy first, apply when you like it
      </label>{" "}
      <label>
        <input type="radio" name="mode" value="live" checked={mode === "live"} onChange={() => onChange("live")} /> Live
        site: each visible change waits for your approval
      </label>
    </fieldset>
  );
}
