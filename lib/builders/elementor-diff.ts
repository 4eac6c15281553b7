/**
 * What a visitor should see change on an Elementor page between two versions of its data: the visible texts that
 * are new, those that are gone, and new link and image addresses (for the look at the live page after a write or
 * an undo: lib/verification). Compared element by element, by id.
 */
import { readElementorPage, visibleSettings } from "./elementor-tree";

/** `texts`: every visible text of the page after (removed text still standing elsewhere proves nothing). */
export type BuilderChanges = { added: string[]; removed: string[]; addresses: string[]; texts: string[] };

const ADDRESS = /(^|\.)(url|youtube_url|vimeo_url|hosted_url)$/;

function visibleValues(raw: string) {
  const texts = new Map<string, string>();
  const addresses = new Set<string>();
  for (const element of readElementorPage(raw).byId.values()) {
    for (const [path, value] of visibleSettings(element)) {
      if (typeof value !== "string") continue;
      if (ADDRESS.test(path)) addresses.add(value);
      else texts.set(`${element.id} ${path}`, value);
    }
  }
  return { texts, addresses };
}

/** The visible differences between two stored pages; pages that cannot be read give none. */
export function builderChanges(before: string, after: string): BuilderChanges {
  let from: ReturnType<typeof visibleValues>;
  let to: ReturnType<typeof visibleValues>;
  try {
    from = visibleValues(before);
    to = visibleValues(after);
  } catch {
    return { added: [], removed: [], addresses: [], texts: [] };
  }
  const added = [...to.texts].filter(([key, value]) => from.texts.get(key) !== value).map(([, value]) => value);
  const removed = [...from.texts].filter(([key, value]) => to.texts.get(key) !== value).map(([, value]) => value);
  const addresses = [...to.addresses].filter((address) => !from.addresses.has(address));
  return { added, removed, addresses, texts: [...to.texts.values()] };
}
