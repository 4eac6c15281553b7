/** Whether the Kubernetes bench (bench/kubernetes.ts) can run here; kept apart so bench/run.ts loads no cluster client. */
import { existsSync } from "node:fs";

/** Why the kubernetes run cannot happen here, or undefined when it can. */
export function kubernetesAbsent(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!env.KUBECONFIG) return "no KUBECONFIG";
  if (!existsSync(env.KUBECONFIG)) return `no file at KUBECONFIG (${env.KUBECONFIG})`;
  if (!env.SANDBOX_IMAGE) return "no SANDBOX_IMAGE (the image imported into the cluster)";
  return undefined;
}
