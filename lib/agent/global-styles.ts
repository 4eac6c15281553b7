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

/** Where the body's and the headings' font family sit in theme.json styles, and what the owner calls them. */
export const FONT_TARGETS = {
  body: { path: ["typography", "fontFamily"], label: "Body font" },
  headings: { path: ["elements", "heading", "typography", "fontFamily"], label: "Headings font" },
} as const;
export type FontTarget = keyof typeof FONT_TARGETS;

/** The slug a font family reference names (`var(--wp--preset--font-family--inter)` or `var:preset|font-family|inter`). */
const fontSlugOf = (value: unknown) =>
  typeof value === "string"
    ? (/^var\(--wp--preset--font-family--([a-z0-9-]+)\)$/.exec(value) ??
        /^var:preset\|font-family\|([a-z0-9-]+)$/.exec(value))?.[1]
    : undefined;

/**
 * The user's styles with the body's or the headings' font set to one of the site's font families (by slug), as
 * the Site Editor writes it: a reference to the preset, so a later change of the family shows everywhere.
 */
export function withFontFamilies(
  themeSettings: unknown,
  userSettings: Json,
  userStyles: Json,
  fonts: Partial<Record<FontTarget, string>>,
): Json {
  const families = effectivePresets(themeSettings, userSettings, "fontFamilies");
  let next = userStyles;
  for (const [target, slug] of Object.entries(fonts) as Array<[FontTarget, string | undefined]>) {
    if (!slug) continue;
    if (!families.some((family) => family.slug === slug)) {
      const known = families.map((family) => family.slug).join(", ") || "none";
      throw new PresetError(`The site has no font family "${slug}" (it has: ${known}).`);
    }
    const patch = FONT_TARGETS[target].path.reduceRight<unknown>(
      (inner, key) => ({ [key]: inner }),
      `var(--wp--preset--font-family--${slug})`,
    ) as Json;
    next = mergeStyles(next, patch);
  }
  return next;
}

export type StyleVariation = { title: string; settings: Json; styles: Json };

/** Each style variation as the model picks one: its title, palette (slug: colour), fonts' names and which it uses. */
export function variationBrief(variation: StyleVariation) {
  // A variation's presets read as the user's would (keyed by origin, or a plain list): effectivePresets does both.
  const colors = effectivePresets({}, variation.settings, "colors");
  const fonts = effectivePresets({}, variation.settings, "fontFamilies");
  return {
    title: variation.title,
    colors: Object.fromEntries(colors.map((preset) => [preset.slug, preset.color])),
    fonts: [...new Set(fonts.map((font) => font.name ?? font.slug))],
    ...Object.fromEntries(
      (Object.keys(FONT_TARGETS) as FontTarget[]).flatMap((target) => {
        const slug = fontSlugOf(at(variation.styles, FONT_TARGETS[target].path));
        return slug ? [[`${target}Font`, slug]] : [];
      }),
    ),
  };
}

/**
 * The owner's settings and styles once a variation is applied, as the Site Editor does it: the variation's own
 * settings and styles replace the owner's; only the owner's custom CSS (not part of any variation) stays.
 */
export function withVariation(user: { settings: Json; styles: Json }, variation: StyleVariation) {
  const styles = clone(variation.styles);
  if (user.styles.css !== undefined) styles.css = user.styles.css;
  return { settings: clone(variation.settings), styles };
}

/** JSON with object keys sorted: WordPress may store the same styles with keys in another order. */
const canonical = (value: unknown): string =>
  isObject(value)
    ? `{${Object.keys(value)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
        .join(",")}}`
    : Array.isArray(value)
      ? `[${value.map(canonical).join(",")}]`
      : JSON.stringify(value);

/**
 * The variation the owner's styles are: its styles (CSS aside) and its palette. Not its whole settings: WordPress
 * drops what it finds unsafe (a gradient with a `;`) when a user without unfiltered_html saves them.
 */
export function appliedVariation(user: { settings: Json; styles: Json }, variations: StyleVariation[]) {
  const { css: _css, ...styles } = user.styles;
  const palette = canonical(effectivePresets({}, user.settings, "colors"));
  return variations.find(
    (v) =>
      canonical(asObject(v.styles)) === canonical(styles) &&
      canonical(effectivePresets({}, v.settings, "colors")) === palette,
  )?.title;
}

/** One style leaf in the owner's words: fonts by their family's name, anything else by its path. */
function styleWords(path: string, value: unknown, families: Preset[]): [string, unknown] {
  const target = (Object.keys(FONT_TARGETS) as FontTarget[]).find((key) => FONT_TARGETS[key].path.join(" › ") === path);
  if (!target) return [path === "css" ? "CSS" : `Style ${path}`, value ?? null];
  const slug = fontSlugOf(value);
  const family = families.find((f) => f.slug === slug);
  return [FONT_TARGETS[target].label, family?.name ?? slug ?? value ?? null];
}

/**
 * What a global styles change does, in the owner's words, for the change card: the style variation applied, each
 * preset whose value changes ("Colour Primary": "#9dff20" → "#c0ffee"), the fonts by name ("Headings font":
 * "Inter") and each other style value ("Style typography › lineHeight").
 */
export function describeStylesChange(
  themeSettings: unknown,
  before: { settings: Json; styles: Json },
  after: { settings: Json; styles: Json },
  variation?: { before?: string; after: string },
): { before: Json; after: Json } {
  const out = { before: {} as Json, after: {} as Json };
  if (variation && variation.before !== variation.after) {
    out.before["Style variation"] = variation.before ?? null;
    out.after["Style variation"] = variation.after;
  }
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
  const families = {
    before: effectivePresets(themeSettings, before.settings, "fontFamilies"),
    after: effectivePresets(themeSettings, after.settings, "fontFamilies"),
  };
  const was = leaves(before.styles);
  const now = leaves(after.styles);
  for (const path of new Set([...was.keys(), ...now.keys()])) {
    if (JSON.stringify(was.get(path)) === JSON.stringify(now.get(path))) continue;
    const [name, old] = styleWords(path, was.get(path), families.before);
    // Every value that is written is shown, a variation's per-block styles included (API.md, "Exactness").
    out.before[name] = old;
    out.after[name] = styleWords(path, now.get(path), families.after)[1];
  }
  return out;
}
