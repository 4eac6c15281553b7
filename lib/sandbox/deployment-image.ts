/**
 * The image sandboxes run is the deployment's, not each process's: the instance that builds (docker) or checks
 * (SANDBOX_IMAGE) an image records its tag in the data layer, and every instance on that database starts
 * sandboxes from, and retires pool members by, the recorded one. With the kubernetes driver the image is always
 * SANDBOX_IMAGE (from the cluster's registry, or preloaded on its nodes): nothing is built here.
 */
import {
  deleteDeploymentSetting,
  findDeploymentSetting,
  listDeploymentSettings,
  setDeploymentSetting,
} from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { dockerEngineOf } from "./docker-driver";
import type { SandboxDriver } from "./driver";
import { ensureSandboxImage, type ImagePaths, removeStaleImages } from "./image";

/** The deployment setting that holds the image tag in use. */
export const IMAGE_SETTING = "sandbox-image";

/**
 * One deployment setting per image tag this deployment has used (`sandbox-image-used:<tag>`): what its GC may remove
 * once unused. An engine may be shared (two deployments, or a test and a developer's app): an image this deployment
 * never recorded is another's, and stays.
 */
export const USED_IMAGE_PREFIX = "sandbox-image-used:";

export class DeploymentImage {
  private own?: Promise<string>;

  constructor(
    private readonly driver: SandboxDriver,
    private readonly settings: { image: string | undefined; imagePaths: ImagePaths },
    private readonly now: () => Date,
  ) {}

  /**
   * The tag to start a sandbox from: the deployment's, when this process's driver has it; else this process's
   * own (built on first use when missing, then recorded as the deployment's). A failure is retried on the next call.
   */
  async image(): Promise<string> {
    const own = await this.ownImage();
    const recorded = await findDeploymentSetting({ key: IMAGE_SETTING });
    if (!recorded || recorded === own) return own;
    return (await this.driver.imageExists(recorded).catch(() => false)) ? recorded : own;
  }

  /** The deployment's image, as recorded; this process's own while nothing is recorded; undefined before either. */
  async current(): Promise<string | undefined> {
    const recorded = await findDeploymentSetting({ key: IMAGE_SETTING });
    return recorded ?? this.own?.catch(() => undefined);
  }

  /**
   * Removes the images this deployment built or used before and uses no more (other than `keep`): docker only, and
   * not when the operator supplies SANDBOX_IMAGE. Forgets those the engine no longer holds.
   */
  async removeStale(keep: string[]): Promise<string[]> {
    const engine = dockerEngineOf(this.driver);
    if (this.settings.image || !engine) return [];
    const records = await listDeploymentSettings({ prefix: USED_IMAGE_PREFIX });
    const used = records.map((record) => record.key.slice(USED_IMAGE_PREFIX.length));
    const { removed, gone } = await removeStaleImages(engine, { keep, used });
    for (const tag of gone) await deleteDeploymentSetting({ key: `${USED_IMAGE_PREFIX}${tag}` });
    return removed;
  }

  private ownImage(): Promise<string> {
    this.own ??= this.prepare().catch((error) => {
      this.own = undefined;
      throw error;
    });
    return this.own;
  }

  private async prepare(): Promise<string> {
    const tag = await this.ensure();
    const now = this.now();
    // Only images built here are ever removed (removeStale): an operator's SANDBOX_IMAGE, or a cluster's, is not ours.
    if (dockerEngineOf(this.driver) && !this.settings.image) {
      // The image it replaces was this deployment's too (recorded before images in use were, by an older version).
      const previous = await findDeploymentSetting({ key: IMAGE_SETTING });
      for (const used of new Set([previous, tag])) {
        if (used) await setDeploymentSetting({ key: `${USED_IMAGE_PREFIX}${used}`, value: now.toISOString(), now });
      }
    }
    await setDeploymentSetting({ key: IMAGE_SETTING, value: tag, now });
    return tag;
  }

  private async ensure(): Promise<string> {
    const engine = dockerEngineOf(this.driver);
    if (engine) {
      return ensureSandboxImage({
        engine,
        configuredImage: this.settings.image,
        paths: this.settings.imagePaths,
        progress: (message) => log.info("sandbox image", { message }),
      });
    }
    const image = this.settings.image;
    if (!image) {
      throw new AppError("sandbox_unavailable", `SANDBOX_IMAGE is required with the ${this.driver.name} driver.`);
    }
    // A driver that cannot tell (a node pulls on demand) answers true: the pod's start then says.
    if (!(await this.driver.imageExists(image))) {
      throw new AppError("sandbox_unavailable", "The configured sandbox image is missing.", { details: { image } });
    }
    return image;
  }
}
