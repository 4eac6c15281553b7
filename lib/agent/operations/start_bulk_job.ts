import { jobSpecSchema } from "@/lib/jobs/spec";
import { defineOperation } from "./operation";

export default defineOperation({
  name: "start_bulk_job",
  label: "Change many items",
  description:
    "Change many items at once (e.g. alt text for all images without it); the owner reviews them as one queue.",
  input: jobSpecSchema,
  scope: "content:write",
  risk: "write",
  startsJob: true,
});
