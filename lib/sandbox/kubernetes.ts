/**
 * The `kubernetes` driver (a pod per sandbox). A placeholder until the driver lands: choosing it answers
 * `sandbox_unavailable`, so a deployment asking for it fails closed rather than falling back to Docker.
 */
import { AppError } from "@/lib/errors";
import type { SandboxConfig } from "./config";
import type { SandboxDriver } from "./driver";

export function createKubernetesDriver(_config: SandboxConfig): SandboxDriver {
  throw new AppError("sandbox_unavailable", "the kubernetes driver is not built into this version");
}
