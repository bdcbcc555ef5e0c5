import { ponder } from "ponder:registry";
import { agent, feedback } from "ponder:schema";

ponder.on("DenseEmitter:NewFeedback", async ({ event, context }) => {
  const a = event.args;
  await context.db.insert(feedback).values({
    agentId: a.agentId,
    clientAddress: a.clientAddress,
    feedbackIndex: a.feedbackIndex,
    value: a.value,
    valueDecimals: a.valueDecimals,
    tag1: a.tag1,
    tag2: a.tag2,
    endpoint: a.endpoint,
    feedbackURI: a.feedbackURI,
    feedbackHash: a.feedbackHash,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    txnHash: event.transaction.hash,
  });
});

// A re-registration replaces the agent's row, as an upsert in credence's agents table does.
ponder.on("DenseEmitter:Registered", async ({ event, context }) => {
  const row = {
    agentURI: event.args.agentURI,
    owner: event.args.owner,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
  };
  await context.db
    .insert(agent)
    .values({ agentId: event.args.agentId, ...row })
    .onConflictDoUpdate(row);
});
