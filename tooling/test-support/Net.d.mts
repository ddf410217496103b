/**
 * A port that is free on 127.0.0.1 now (the OS picks it for a probe that closes at once).
 *
 * @example
 * ```ts
 * const port = await freePort()
 * ```
 */
export declare const freePort: () => Promise<number>

/**
 * Whether something accepts connections on 127.0.0.1:`port` now (a silent peer counts as no after 1 s).
 *
 * @example
 * ```ts
 * expect(await accepting(port)).toBe(false)
 * ```
 */
export declare const accepting: (port: number) => Promise<boolean>
