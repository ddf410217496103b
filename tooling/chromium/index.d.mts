export declare const chromiumExecutable: string
export declare const chromiumArgs: ReadonlyArray<string>
export declare const assertChromium: () => string
