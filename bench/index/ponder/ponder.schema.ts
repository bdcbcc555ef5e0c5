import { onchainTable, primaryKey } from "ponder";

// The two tables credence index keeps for these events (feedback, agents), in Ponder's terms.
export const feedback = onchainTable(
  "feedback",
  (t) => ({
    agentId: t.bigint().notNull(),
    clientAddress: t.hex().notNull(),
    feedbackIndex: t.bigint().notNull(),
    value: t.bigint().notNull(),
    valueDecimals: t.integer().notNull(),
    tag1: t.text().notNull(),
    tag2: t.text().notNull(),
    endpoint: t.text().notNull(),
    feedbackURI: t.text().notNull(),
    feedbackHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    txnHash: t.hex().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.agentId, table.clientAddress, table.feedbackIndex] }),
  }),
);

export const agent = onchainTable("agent", (t) => ({
  agentId: t.bigint().primaryKey(),
  agentURI: t.text().notNull(),
  owner: t.hex().notNull(),
  blockNumber: t.bigint().notNull(),
  logIndex: t.integer().notNull(),
}));
