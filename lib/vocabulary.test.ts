/**
 * The app reads plugin/vocabulary.json, the file the plugin ships and reads too (plugin/tests/VocabularyTest.php
 * checks the plugin follows it): what is still spelled on this side, for TypeScript's types or the app's own limits,
 * must match it.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_BYTES } from "@/lib/agent/chat-constants";
import type { Scope as OperationScope } from "@/lib/agent/operations/operation";
import { kindOf, reverseChange } from "@/lib/changes/plan";
import type { ItemChange } from "@/lib/db/schema";
import { MAX_BODY_BYTES } from "@/lib/http/body";
import { MAX_SUBSET_IDS, SNAPSHOT_FORMAT as SUBSET_SNAPSHOT_FORMAT } from "@/lib/sandbox/subset";
import { ALL_SCOPES } from "@/test/agent-site";
import {
  DESIGN_POST_TYPES,
  ITEM_KINDS,
  LIMITS,
  OPTION_LABELS,
  PAGE_BUILDERS,
  PERMISSIONS_PLACE,
  PLUGIN_FEATURES,
  POST_FIELDS,
  pageBuilderName,
  SAVE_PERMISSIONS_BUTTON,
  SCOPE_WORDS,
  SCOPES,
  SIGNED_REQUEST_ERRORS,
  SNAPSHOT_FORMAT,
  type Scope,
} from "./vocabulary";

/** The file as the plugin reads it from disk (not through the bundler's JSON import). */
const vocabulary = JSON.parse(readFileSync(new URL("../plugin/vocabulary.json", import.meta.url), "utf8"));

// The operations' Scope type is the vocabulary's (a compile error under `tsc` otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const scopeTypesAgree: Same<Scope, OperationScope> = true;

/** Every action an item change may name (the ItemChange type's union, spelled for the test). */
const CHANGE_ACTIONS: Array<ItemChange["action"]> = ["update", "create", "delete", "trash", "restore"];

describe("the shared vocabulary", () => {
  it("has the plugin's six scopes in the same order, everywhere the app lists them", () => {
    expect(scopeTypesAgree).toBe(true);
    expect(SCOPES).toEqual(vocabulary.scopes);
    expect(ALL_SCOPES.split(",")).toEqual(vocabulary.scopes);
  });

  it("words each scope as the plugin's checkboxes do, and names the screen and button that change them", () => {
    expect(SCOPE_WORDS).toEqual(vocabulary.scopeWords);
    expect(Object.keys(SCOPE_WORDS)).toEqual(vocabulary.scopes);
    expect(PERMISSIONS_PLACE).toBe(vocabulary.permissionsPlace);
    expect(SAVE_PERMISSIONS_BUTTON).toBe(vocabulary.savePermissionsButton);
  });

  it("names every page builder the plugin reports, classic-editor included", () => {
    expect(PAGE_BUILDERS).toEqual(vocabulary.pageBuilders);
    expect(pageBuilderName("classic-editor")).toBe("Classic editor");
    expect(pageBuilderName("gutenberg")).toBe("Block editor (Gutenberg)");
    expect(pageBuilderName("a-new-builder")).toBe("a-new-builder");
    expect(pageBuilderName(undefined)).toBe("Unknown");
  });

  it("has the same limits, snapshot format and features as the plugin", () => {
    expect(LIMITS).toEqual(vocabulary.limits);
    expect(MAX_BODY_BYTES).toBe(vocabulary.limits.requestBodyMaxBytes);
    expect(MAX_MESSAGE_BYTES).toBe(vocabulary.limits.chatMessageMaxBytes);
    expect(MAX_SUBSET_IDS).toBe(vocabulary.limits.exportMaxIds);
    expect(SNAPSHOT_FORMAT).toBe(vocabulary.snapshotFormat);
    expect(SUBSET_SNAPSHOT_FORMAT).toBe(vocabulary.snapshotFormat);
    expect(PLUGIN_FEATURES).toEqual(vocabulary.features);
  });

  it("knows every refusal of the signed channel with its status", () => {
    expect(SIGNED_REQUEST_ERRORS).toEqual(vocabulary.signedRequestErrors);
  });

  it("plans item changes with the kinds, actions, fields and scopes the plugin accepts", () => {
    expect(ITEM_KINDS).toEqual(vocabulary.items.kinds);
    for (const [kind, rules] of Object.entries(ITEM_KINDS)) {
      for (const action of rules.actions) expect(CHANGE_ACTIONS, kind).toContain(action);
      expect(SCOPES, kind).toContain(rules.readScope);
      expect(SCOPES, kind).toContain(rules.writeScope);
    }
    expect(new Set(Object.values(ITEM_KINDS).flatMap((rules) => rules.actions))).toEqual(new Set(CHANGE_ACTIONS));
    expect(POST_FIELDS).toEqual(vocabulary.items.kinds.post.fields);
    // Undo sends back only the post fields the plugin accepts, whatever else the recorded state holds.
    const undo = reverseChange({
      ref: "post:7",
      action: "update",
      versionAfter: "v2",
      beforeState: { type: "page", title: "Old", modified: "earlier" },
      afterState: { type: "page", title: "New", modified: "later" },
    });
    expect(undo).toEqual({ ref: "post:7", expect: "v2", action: "update", fields: { title: "Old" } });
  });

  it("labels exactly the options the plugin lets an item change, and names design post types as it does", () => {
    expect(OPTION_LABELS).toEqual(vocabulary.items.options);
    expect(OPTION_LABELS.blogdescription).toBe("Tagline");
    expect(DESIGN_POST_TYPES).toEqual(vocabulary.items.designPostTypes);
    for (const type of Object.keys(DESIGN_POST_TYPES)) expect(vocabulary.items.postTypes).toContain(type);
    expect(kindOf("post:3", { type: "wp_navigation" })).toBe("navigation");
    expect(kindOf("post:3", { type: "page" })).toBe("page");
    expect(kindOf("option:blogname", { value: "x" })).toBe("setting");
  });
});
