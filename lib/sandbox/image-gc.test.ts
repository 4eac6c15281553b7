/**
 * GC removes the sandbox images this deployment used and uses no more, and never another deployment's: one engine
 * may serve several deployments (staging beside production, a developer's app beside the test suite, the suite's
 * own files side by side), and an image only another deployment made, removed under it, is rebuilt there on its next
 * sandbox (a minute). Against the real engine (Podman) and PostgreSQL.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findDeploymentSetting, listDeploymentSettings, setDeploymentSetting } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { IMAGE_SETTING, USED_IMAGE_PREFIX } from "./deployment-image";
import { collectGarbage } from "./gc";
import { IMAGE_REPOSITORY } from "./image";
import { createTestSandboxes, type TestSandboxes } from "./testing";

useTestDatabase();

let t: TestSandboxes;
let current: string;
const made: string[] = [];

/** An image of ours (it inherits the sitewright.image-inputs label) with an id of its own, tagged `tag`. */
async function imageOfOurs(tag: string) {
  const context = mkdtempSync(path.join(os.tmpdir(), "sw-image-gc-"));
  try {
    writeFileSync(path.join(context, "Dockerfile"), `FROM ${current}\nLABEL sitewright.test-image="${tag}"\n`);
    const tar = spawn("tar", ["-c", "-C", context, "."], { stdio: ["ignore", "pipe", "inherit"] });
    const stream = await t.engine.docker.buildImage(tar.stdout, { t: tag, rm: true, networkmode: "none" });
    await new Promise((resolve, reject) =>
      t.engine.docker.modem.followProgress(stream, (error) => (error ? reject(error) : resolve(undefined))),
    );
    made.push(tag);
    expect(await t.engine.imageExists(tag)).toBe(true);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  t = createTestSandboxes();
  current = await t.manager.image();
}, 300_000);

afterAll(async () => {
  for (const tag of made)
    await t.engine.docker
      .getImage(tag)
      .remove()
      .catch(() => {});
  await t?.cleanup();
});

describe("sandbox image GC on a shared engine", () => {
  it("removes the image this deployment used before, keeps its current one and leaves another deployment's", async () => {
    const suffix = randomBytes(4).toString("hex");
    const mine = `${IMAGE_REPOSITORY}:gc-mine-${suffix}`;
    const others = `${IMAGE_REPOSITORY}:gc-other-${suffix}`;
    await imageOfOurs(mine);
    await imageOfOurs(others);

    // This deployment ran `mine` before (recorded by an older version, before images in use were): a new process
    // prepares the current image and records both as this deployment's.
    await setDeploymentSetting({ key: IMAGE_SETTING, value: mine, now: new Date() });
    const fresh = createTestSandboxes({ namespace: t.namespace });
    try {
      expect(await fresh.manager.image()).toBe(current);
      expect(await findDeploymentSetting({ key: IMAGE_SETTING })).toBe(current);
      const used = (await listDeploymentSettings({ prefix: USED_IMAGE_PREFIX })).map((row) => row.key).sort();
      expect(used).toEqual([`${USED_IMAGE_PREFIX}${current}`, `${USED_IMAGE_PREFIX}${mine}`].sort());

      const report = await collectGarbage(fresh.manager, { now: new Date(Date.now() + 4 * 3600_000) });
      expect(report.imagesRemoved).toEqual([mine]);
      expect(await t.engine.imageExists(mine)).toBe(false);
      // Another deployment's image (never recorded here) and the current one stay.
      expect(await t.engine.imageExists(others)).toBe(true);
      expect(await t.engine.imageExists(current)).toBe(true);
      // What the engine no longer holds is forgotten; the current image stays recorded.
      expect((await listDeploymentSettings({ prefix: USED_IMAGE_PREFIX })).map((row) => row.key)).toEqual([
        `${USED_IMAGE_PREFIX}${current}`,
      ]);

      // A second pass removes nothing more.
      const again = await collectGarbage(fresh.manager, { now: new Date(Date.now() + 8 * 3600_000) });
      expect(again.imagesRemoved).toEqual([]);
      expect(await t.engine.imageExists(others)).toBe(true);
    } finally {
      await fresh.cleanup();
    }
  });
});
