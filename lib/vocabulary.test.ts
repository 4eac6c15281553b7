/**
 * The app agrees with test/vectors/vocabulary.json, which the plugin's PHPUnit suite loads too
 * (plugin/tests/VocabularyTest.php): a drift on either side fails one of the two.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Scope as OperationScope } from "@/lib/agent/operations/operation";
import { MAX_MESSAGE_BYTES } from "@/lib/agent/chat-constants";
import { ALL_SCOPES } from "@/test/agent-site";
import { MAX_BODY_BYTES } from "@/lib/http/body";
import { MAX_SUBSET_IDS, SNAPSHOT_FORMAT as SUBSET_SNAPSHOT_FORMAT } from "@/lib/sandbox/subset";
import {
  LIMITS,
  PAGE_BUILDERS,
  PERMISSIONS_PLACE,
  PLUGIN_FEATURES,
  pageBuilderName,
  SAVE_PERMISSIONS_BUTTON,
  SCOPE_WORDS,
  SCOPES,
  SIGNED_REQUEST_ERRORS,
  SNAPSHOT_FORMAT,
  type Scope,
} from "./vocabulary";

const vocabulary = JSON.parse(readFileSync(new URL("../test/vectors/vocabulary.json", import.meta.url), "utf8"));

// The operations' Scope type is the vocabulary's (a compile error under `tsc` otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const scopeTypesAgree: Same<Scope, OperationScope> = true;

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
});
