/**
 * The assistant's replies rendered as Markdown, safely. Replies mix the model's words with text it read on the
 * site, so nothing in them may act in the page: raw HTML is dropped (never parsed into elements), links go only
 * to http(s) addresses and open as untrusted (`rel="noopener noreferrer nofollow"`), and images are never
 * loaded (an image from an arbitrary host would leak the reader's visit); they are shown as a link instead.
 */
import type { ComponentProps } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

/** Only absolute http(s) URLs survive; anything else (javascript:, data:, relative, mailto:) loses its link. */
export function safeUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

const components: Components = {
  a: ({ href, children }) => {
    const url = href ? safeUrl(href) : undefined;
    if (!url) return <span>{children}</span>;
    return (
      <a href={url} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    );
  },
  img: ({ src, alt }) => {
    const url = typeof src === "string" ? safeUrl(src) : undefined;
    const label = `Image: ${alt || "no description"}`;
    if (!url) return <span>[{label}]</span>;
    return (
      <a href={url} target="_blank" rel="noopener noreferrer nofollow">
        [{label}]
      </a>
    );
  },
  // Wide tables and code scroll inside the bubble instead of widening the page on a phone.
  table: ({ children }) => (
    <div className="scrollX">
      <table>{children}</table>
    </div>
  ),
  pre: ({ children }) => <pre className="scrollX">{children}</pre>,
};

export function Markdown({ text, className }: { text: string; className?: ComponentProps<"div">["className"] }) {
  return (
    <div className={className}>
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        skipHtml
        urlTransform={(url) => safeUrl(url) ?? ""}
        components={components}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
