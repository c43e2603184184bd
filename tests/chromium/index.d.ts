/** Where Chromium is: `MINCA_CHROMIUM`, or Debian's `/usr/bin/chromium`. */
export declare const CHROMIUM: string;
/** Whether {@link CHROMIUM} is there. */
export declare const HAS_CHROMIUM: boolean;
/** Headless as root, and quiet: no sandbox, GPU, QUIC, first-run, background or sync traffic. */
export declare const CHROMIUM_ARGS: readonly string[];
/**
 * Options for playwright-core's `chromium.launch` (which gives each browser a fresh temporary
 * profile, its user-data-dir, and deletes it on close) or `launchPersistentContext` (pass it a
 * fresh directory).
 */
export declare function chromiumLaunchOptions(): {
  executablePath: string;
  headless: true;
  args: string[];
};
/**
 * Whether Chromium is there for `who`'s browser run. Where it is missing, that is an error on CI
 * (`CI=true`), which must run every test, and elsewhere a warning that the run is skipped.
 */
export declare function checkChromium(who: string): boolean;
