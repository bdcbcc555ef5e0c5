// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {AgentWorkflow} from "../AgentWorkflow.sol";
import {AgentReply} from "../../interfaces/IAgentWorkflow.sol";

/// @title BFTCommitRevealWorkflow
/// @notice ERC-8301 Scenario 4 (dynamic FSM): Commit (async) -> Reveal (async) -> Finalize (sync, terminal).
///         Commit: outputHash = keccak256(result || nonce); the first commit of `quorum` distinct agents
///         closes the round. Reveal: only committers; output = result || nonce (64 bytes) with
///         keccak256(output) == outputHash == the agent's commitment; invalid reveals are silently discarded.
///         When one `result` has a strict majority of the quorum (quorum/2 + 1 reveals), Finalize is
///         dispatched with inputHash = result; the aggregator's proven reply passes the final gate only if
///         its outputHash equals that majority result (otherwise silent: the stage stays open).
///         If every committer revealed validly and no result has a majority, the gate aborts the run.
contract BFTCommitRevealWorkflow is AgentWorkflow {
    /// @notice quorum must be at least 1.
    error InvalidQuorum();

    /// @notice Emitted for every counted commit.
    event CommitAccepted(bytes32 indexed workflowRunId, address indexed agent, bytes32 commitment);
    /// @notice Emitted for every counted reveal.
    event RevealAccepted(bytes32 indexed workflowRunId, address indexed agent, bytes32 result);
    /// @notice Emitted for every silently discarded reply.
    event ReplyDiscarded(bytes32 indexed workflowRunId, bytes32 indexed replyHash);

    /// @notice Commit stage.
    uint8 public constant STAGE_COMMIT = 0;
    /// @notice Reveal stage.
    uint8 public constant STAGE_REVEAL = 1;
    /// @notice Finalize stage (terminal, sync).
    uint8 public constant STAGE_FINALIZE = 2;
    /// @notice Number of distinct committers required.
    uint256 public immutable quorum;

    mapping(bytes32 runId => bytes32[]) private _commits;
    mapping(bytes32 runId => mapping(address agent => bytes32 commitReply)) private _commitOf;
    mapping(bytes32 runId => mapping(address agent => bool)) private _revealed;
    mapping(bytes32 runId => mapping(bytes32 result => bytes32[] reveals)) private _tally;
    mapping(bytes32 runId => uint256) private _revealCount;

    constructor(address verifier_, bool agentMode_, bytes memory metadata_, uint256 quorum_)
        AgentWorkflow(verifier_, agentMode_, metadata_)
    {
        if (quorum_ == 0) revert InvalidQuorum();
        quorum = quorum_;
    }

    /// @notice Reveal replies counted for `result`.
    function votesFor(bytes32 runId, bytes32 resultWord) external view returns (uint256) {
        return _tally[runId][resultWord].length;
    }

    function _start(bytes32 runId, bytes32 inputHash, bytes calldata input, uint256 expiresAt) internal override {
        _emitTask(runId, STAGE_COMMIT, inputHash, input, expiresAt, new bytes32[](0));
    }

    function _isSyncStage(uint8 stage) internal pure override returns (bool) {
        return stage == STAGE_FINALIZE;
    }

    function _asyncGate(bytes32 runId, bytes32 replyHash, uint8 stage) internal override {
        AgentReply storage rep = _reply(replyHash);
        address agent = rep.replier;
        if (stage == STAGE_COMMIT) {
            if (_commitOf[runId][agent] != bytes32(0)) {
                emit ReplyDiscarded(runId, replyHash);
                return;
            }
            _commitOf[runId][agent] = replyHash;
            _commits[runId].push(replyHash);
            emit CommitAccepted(runId, agent, rep.outputHash);
            if (_commits[runId].length == quorum) {
                bytes32 question = _task(rep.prevTaskHashes[0]).inputHash;
                _transition(runId, STAGE_REVEAL);
                _emitTask(runId, STAGE_REVEAL, question, "", _nextExpiry(runId), _commits[runId]);
            }
            return;
        }
        // Reveal.
        bytes32 commitReply = _commitOf[runId][agent];
        bytes memory out = rep.output;
        if (
            commitReply == bytes32(0) || _revealed[runId][agent] || out.length != 64 || keccak256(out) != rep.outputHash
                || rep.outputHash != _reply(commitReply).outputHash
        ) {
            emit ReplyDiscarded(runId, replyHash);
            return;
        }
        _revealed[runId][agent] = true;
        bytes32 resultWord;
        assembly ("memory-safe") {
            resultWord := mload(add(out, 0x20))
        }
        bytes32[] storage votes = _tally[runId][resultWord];
        votes.push(replyHash);
        emit RevealAccepted(runId, agent, resultWord);
        if (votes.length == quorum / 2 + 1) {
            _transition(runId, STAGE_FINALIZE); // pass
            _emitTask(runId, STAGE_FINALIZE, resultWord, "", _nextExpiry(runId), votes);
        } else if (++_revealCount[runId] == quorum) {
            _fail(runId); // abort: everyone revealed, no majority
        }
    }

    function _syncGate(bytes32 runId, bytes32 replyHash, uint8) internal override {
        AgentReply storage rep = _reply(replyHash);
        if (rep.outputHash != _task(rep.prevTaskHashes[0]).inputHash) {
            emit ReplyDiscarded(runId, replyHash);
            return;
        }
        bytes32[] memory prev = new bytes32[](1);
        prev[0] = replyHash;
        _complete(runId, prev);
    }
}
