/**
 * Choosing the driver from SANDBOX_DRIVER: either value turns sandboxes on, the kubernetes settings are read
 * with their defaults, and the kubernetes driver never builds an image: without SANDBOX_IMAGE it answers 503.
 */
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/env";
import { sandboxConfig } from "./config";
import { DockerDriver } from "./docker-driver";
import { createDriver, lazyDriver } from "./drivers";
import { SandboxManager } from "./sandboxes";

const KEYS = ["SANDBOX_DRIVER", "SANDBOX_K8S_NAMESPACE", "SANDBOX_K8S_RUNTIME_CLASS", "KUBECONFIG", "SANDBOX_IMAGE"];
const before = Object.fromEntries(KEYS.map((key) => [key, process.env[key]]));

afterEach(() => resetEnvForTests(before));

describe("the sandbox driver", () => {
  it("is off when SANDBOX_DRIVER is unset, and on for docker and for kubernetes", () => {
    resetEnvForTests({ SANDBOX_DRIVER: undefined });
    expect(sandboxConfig()).toMatchObject({ enabled: false, driver: "docker" });
    resetEnvForTests({ SANDBOX_DRIVER: "docker" });
    expect(sandboxConfig()).toMatchObject({ enabled: true, driver: "docker" });
    expect(createDriver(sandboxConfig())).toBeInstanceOf(DockerDriver);
    resetEnvForTests({ SANDBOX_DRIVER: "kubernetes", SANDBOX_K8S_NAMESPACE: undefined, KUBECONFIG: "/etc/kube.conf" });
    expect(sandboxConfig()).toMatchObject({
      enabled: true,
      driver: "kubernetes",
      kubernetes: { namespace: "sitewright-sandboxes", runtimeClass: undefined, kubeconfig: "/etc/kube.conf" },
    });
    expect(createDriver(sandboxConfig()).name).toBe("kubernetes");
    resetEnvForTests({ SANDBOX_K8S_NAMESPACE: "Not A Name" });
    expect(() => sandboxConfig()).toThrow();
  });

  it("answers 503 with the kubernetes driver when no SANDBOX_IMAGE names the image, and builds nothing", async () => {
    resetEnvForTests({ SANDBOX_DRIVER: "kubernetes", SANDBOX_IMAGE: undefined });
    const manager = new SandboxManager(sandboxConfig({ poolSize: 0 }));
    await expect(manager.image()).rejects.toMatchObject({
      code: "sandbox_unavailable",
      message: expect.stringContaining("SANDBOX_IMAGE"),
    });
  });

  it("makes a lazy driver on first use, and again after a failure to make it", async () => {
    let attempts = 0;
    const docker = new DockerDriver();
    const driver = lazyDriver("docker", async () => {
      attempts++;
      if (attempts === 1) throw new Error("not yet");
      return { ...docker, name: "docker", imageExists: async (tag: string) => tag === "there" } as typeof docker;
    });
    expect(attempts).toBe(0);
    await expect(driver.imageExists("there")).rejects.toThrow("not yet");
    expect(await driver.imageExists("there")).toBe(true);
    expect(await driver.imageExists("elsewhere")).toBe(false);
    expect(attempts).toBe(2);
  });
});
