import { createConfig } from "ponder";
import { DenseEmitterAbi } from "./abis/DenseEmitterAbi";

// Everything comes from the environment (bench/index/ponder.sh sets it): one contract on one
// anvil chain. Without DATABASE_URL the database is PGlite in PONDER_PGLITE_DIR.
const need = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

export default createConfig({
  database: process.env.DATABASE_URL
    ? { kind: "postgres", connectionString: process.env.DATABASE_URL }
    : { kind: "pglite", directory: need("PONDER_PGLITE_DIR") },
  chains: {
    anvil: {
      id: 31337,
      rpc: need("PONDER_RPC_URL_31337"),
      // A fresh database each run: nothing to reuse, but Ponder still writes its RPC cache
      // (the sync store) unless this is set; PONDER_DISABLE_CACHE=true measures without it.
      disableCache: process.env.PONDER_DISABLE_CACHE === "true",
    },
  },
  contracts: {
    DenseEmitter: {
      abi: DenseEmitterAbi,
      chain: "anvil",
      address: need("DENSE_EMITTER") as `0x${string}`,
      startBlock: Number(need("DENSE_START_BLOCK")),
    },
  },
});
