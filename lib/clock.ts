/** The service's notion of now. Tests move it to check expiry without waiting. */
let offsetMs = 0;
export const now = () => new Date(Date.now() + offsetMs);
export const nowMs = () => Date.now() + offsetMs;
export function advanceClockForTests(ms: number) {
  offsetMs += ms;
}
export function resetClockForTests() {
  offsetMs = 0;
}
