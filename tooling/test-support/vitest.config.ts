// This package's tests need nothing beyond what every package shares.
import shared from "../../vitest.shared.js"

export default shared
