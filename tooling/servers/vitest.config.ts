import { defineConfig, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// The servers start for real (initdb, postgres, mariadbd, redis-server) and are awaited by their ready lines,
// not by time; the timeouts only have to outlast a start-up on a loaded machine (initdb alone takes
// tens of seconds at a load of 20 on 2 cores, where vitest's default 5 s failed).
export default mergeConfig(
  shared,
  defineConfig({
    test: { testTimeout: 180_000, hookTimeout: 180_000 }
  })
)
