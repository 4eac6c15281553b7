/** The part of autocannon's API the benchmarks use (the package ships no types). */
declare module "autocannon" {
  type Percentiles = {
    average: number;
    mean: number;
    max: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    p99_9: number;
  };
  export type Result = {
    latency: Percentiles;
    requests: Percentiles & { total: number };
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
    "5xx": number;
  };
  export type Options = {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
  };
  export default function autocannon(options: Options): Promise<Result>;
}
