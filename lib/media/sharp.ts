/**
 * sharp, loaded when an image is first prepared rather than when the server starts: its native library must never
 * stop the app from booting (an image that cannot be prepared is refused, the rest of Sitewright works).
 */
import type SharpModule from "sharp";

let loaded: Promise<typeof SharpModule> | undefined;

export function loadSharp(): Promise<typeof SharpModule> {
  loaded ??= import("sharp").then((module) => module.default);
  return loaded;
}
