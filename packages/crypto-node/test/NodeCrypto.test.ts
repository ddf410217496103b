import { describeCryptoProvider } from "@pc/crypto-conformance"
import { NodeCrypto } from "../src/index.js"

describeCryptoProvider(`node (node:crypto) in node ${process.versions.node}`, NodeCrypto)
