import { afterEach } from "vitest";
import { resetClockForTests } from "@/lib/clock";

// Every test starts at real time; tests that move the clock do not leak into the next one.
afterEach(() => resetClockForTests());
