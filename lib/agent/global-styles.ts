/**
 * A block theme's global styles as the agent reads and changes them: the theme's presets (palette, font sizes,
 * font families, spacing sizes) with the user's edits on top, and the user's `styles` merged, never replaced.
 * Pure functions over theme.json data; the operations read and write through the plugin's items.
 */

type Json = Record<string, unknown>;
export type Preset = { slug: string; name?: string; color?: string; size?: string; fontFamily?: string };

/** The presets the agent shows; `change` names the ones it can change (by slug) and the value's key. */
export const PRESETS = {
  colors: { path: ["color", "palette"], value: "color" },
  fontSizes: { path: ["typography", "fontSizes"], value: "size" },
  fontFamilies: { path: ["typography", "fontFamilies"], value: "fontFamily" },
  spacingSizes: { path: ["spacing", "spacingSizes"], value: "size" },
} as const;
export type PresetKind = keyof typeof PRESETS;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const at = (root: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), root);

/**
 * A preset list as theme.json keeps it: keyed by origin (`{theme: [...], custom: [...]}`), or a plain list, which
 * WordPress reads as the origin of the file it is in (`theme` in a theme's, `custom` in the user's).
 */
function listOf(value: unknown, origin: "theme" | "custom", plainOrigin: "theme" | "custom"): Preset[] | undefined {
  if (Array.isArray(value)) return origin === plainOrigin ? (value as Preset[]) : undefined;
  if (isObject(value) && Array.isArray(value[origin])) return value[origin] as Preset[];
  return undefined;
}

/** The presets visitors get: the user's copy of the theme's presets if they edited them, else the theme's, then the user's own. */
export function effectivePresets(themeSettings: unknown, userSettings: unknown, kind: PresetKind): Preset[] {
  const { path } = PRESETS[kind];
  const user = at(userSettings, path);
  const theme = listOf(user, "theme", "custom") ?? listOf(at(themeSettings, path), "theme", "theme") ?? [];
  return [...theme, ...(listOf(user, "custom", "custom") ?? [])];
}

export class PresetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PresetError";
  }
}

const clone = <T>(value: T): T => structuredClone(value);

/**
 * The user's settings with some presets' values changed (by slug). The theme's presets are copied into the user's
 * settings the way the Site Editor does it (`palette.theme`), so the theme's file stays untouched.
 */
export function withPresetValues(
  themeSettings: unknown,
  userSettings: Json,
  kind: "colors" | "fontSizes",
  values: Record<string, string>,
): Json {
  const { path, value: key } = PRESETS[kind];
  const next = clone(userSettings);
  const user = at(next, path);
  const lists = {
    theme: clone(listOf(user, "theme", "custom") ?? listOf(at(themeSettings, path), "theme", "theme") ?? []),
    custom: clone(listOf(user, "custom", "custom") ?? []),
  };
  const touched = new Set<"theme" | "custom">();
  for (const [slug, value] of Object.entries(values)) {
    const origin = (["theme", "custom"] as const).find((o) => lists[o].some((preset) => preset.slug === slug));
    if (!origin) {
      const known = [...lists.theme, ...lists.custom].map((preset) => preset.slug).join(", ") || "none";
      throw new PresetError(
        `The site has no ${kind === "colors" ? "colour" : "font size"} "${slug}" (it has: ${known}).`,
      );
    }
    lists[origin] = lists[origin].map((preset) => (preset.slug === slug ? { ...preset, [key]: value } : preset));
    touched.add(origin);
  }
  let node: Json = next;
  path.forEach((step, index) => {
    // A plain list in the user's data becomes keyed by origin (it was the user's own: `custom`).
    if (index === path.length - 1 && Array.isArray(node[step])) node[step] = { custom: lists.custom };
    if (!isObject(node[step])) node[step] = {};
    node = node[step] as Json;
  });
  for (const origin of touched) node[origin] = lists[origin];
  return next;
}

/** Deep merge of a styles patch: objects merge, anything else replaces, `null` removes the key. */
export function mergeStyles(current: Json, patch: Json): Json {
  const next: Json = clone(current);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else if (isObject(value) && isObject(next[key])) next[key] = mergeStyles(next[key] as Json, value);
    else next[key] = clone(value);
  }
  return next;
}

/** Objects the site sent as `[]` (PHP's empty array) read as `{}`. */
export const asObject = (value: unknown): Json => (isObject(value) ? value : {});

/** Leaf values of a styles object by path ("typography › lineHeight"). */
function leaves(value: unknown, path: string[] = [], out = new Map<string, unknown>()): Map<string, unknown> {
  if (isObject(value)) for (const [key, inner] of Object.entries(value)) leaves(inner, [...path, key], out);
  else if (path.length > 0) out.set(path.join(" › "), value);
  return out;
}

/**
 * What a global styles change does, in the owner's words, for the change card: each preset whose value changes
 * ("Colour Primary": "#9dff20" → "#c0ffee") and each style value ("Style typography › lineHeight").
 */
export function describeStylesChange(
  themeSettings: unknown,
  before: { settings: Json; styles: Json },
  after: { settings: Json; styles: Json },
): { before: Json; after: Json } {
  const out = { before: {} as Json, after: {} as Json };
  for (const [kind, label] of [
    ["colors", "Colour"],
    ["fontSizes", "Font size"],
  ] as const) {
    const key = PRESETS[kind].value;
    const old = new Map(effectivePresets(themeSettings, before.settings, kind).map((p) => [p.slug, p]));
    for (const preset of effectivePresets(themeSettings, after.settings, kind)) {
      const previous = old.get(preset.slug);
      if (previous?.[key] === preset[key]) continue;
      const name = `${label} ${preset.name ?? preset.slug}`;
      out.before[name] = previous?.[key] ?? null;
      out.after[name] = preset[key];
    }
  }
  const was = leaves(before.styles);
  const now = leaves(after.styles);
  for (const path of new Set([...was.keys(), ...now.keys()])) {
    if (JSON.stringify(was.get(path)) === JSON.stringify(now.get(path))) continue;
    const name = path === "css" ? "CSS" : `Style ${path}`;
    out.before[name] = was.get(path) ?? null;
    out.after[name] = now.get(path) ?? null;
  }
  return out;
}
