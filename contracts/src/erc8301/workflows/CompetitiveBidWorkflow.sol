// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {AgentWorkflow} from "../AgentWorkflow.sol";
import {AgentReply} from "../../interfaces/IAgentWorkflow.sol";

/// @title CompetitiveBidWorkflow
/// @notice ERC-8301 Scenario 2 (dynamic FSM): Bid (async) -> Execute (sync, terminal).
///         A bid is a reply whose output is abi.encode(uint256 price) with keccak256(output) == outputHash.
///         Malformed bids and repeated bids by the same replier are silently discarded (anchored, no effect).
///         When `bidQuorum` valid bids are in (or the Bid task times out with at least one), the lowest bid
///         wins (ties: earliest); the Execute task carries the winner's outputHash, and only the winner may
///         reply to it. A Bid task that times out with no valid bid is retried once (a new Bid task,
///         same stage, next taskSeq); a second empty timeout aborts the run.
contract CompetitiveBidWorkflow is AgentWorkflow {
    /// @notice Only the selected bidder may reply to the Execute task.
    error NotSelectedBidder(address replier);
    /// @notice bidQuorum must be at least 1.
    error InvalidQuorum();

    /// @notice Emitted when a bid is counted.
    event BidAccepted(bytes32 indexed workflowRunId, bytes32 indexed replyHash, uint256 price);
    /// @notice Emitted when a bid is discarded (malformed or repeated).
    event BidDiscarded(bytes32 indexed workflowRunId, bytes32 indexed replyHash);

    /// @notice Bidding stage.
    uint8 public constant STAGE_BID = 0;
    /// @notice Execution stage (terminal, sync).
    uint8 public constant STAGE_EXECUTE = 1;
    /// @notice Valid bids that close the auction.
    uint256 public immutable bidQuorum;
    /// @notice How many times an empty auction is re-opened before the run aborts.
    uint8 public constant MAX_BID_RETRIES = 1;

    struct Auction {
        uint32 bids;
        uint8 retries;
        address winner;
        uint256 bestPrice;
        bytes32 bestReply;
    }

    mapping(bytes32 runId => Auction) private _auctions;
    mapping(bytes32 runId => mapping(address bidder => bool)) private _hasBid;

    constructor(address verifier_, bool agentMode_, bytes memory metadata_, uint256 bidQuorum_)
        AgentWorkflow(verifier_, agentMode_, metadata_)
    {
        if (bidQuorum_ == 0) revert InvalidQuorum();
        bidQuorum = bidQuorum_;
    }

    /// @notice Current auction state of a run.
    function auction(bytes32 runId) external view returns (Auction memory) {
        return _auctions[runId];
    }

    function _start(bytes32 runId, bytes32 inputHash, bytes calldata input, uint256 expiresAt) internal override {
        _emitTask(runId, STAGE_BID, inputHash, input, expiresAt, new bytes32[](0));
    }

    function _isSyncStage(uint8 stage) internal pure override returns (bool) {
        return stage == STAGE_EXECUTE;
    }

    function _checkReply(bytes32 runId, AgentReply calldata reply) internal view override {
        if (_task(reply.prevTaskHashes[0]).stage == STAGE_EXECUTE && reply.replier != _auctions[runId].winner) {
            revert NotSelectedBidder(reply.replier);
        }
    }

    function _asyncGate(bytes32 runId, bytes32 replyHash, uint8) internal override {
        AgentReply storage rep = _reply(replyHash);
        bytes memory out = rep.output;
        // Silent discard: malformed output, or a second bid from the same bidder.
        if (out.length != 32 || keccak256(out) != rep.outputHash || _hasBid[runId][rep.replier]) {
            emit BidDiscarded(runId, replyHash);
            return;
        }
        _hasBid[runId][rep.replier] = true;
        uint256 price = abi.decode(out, (uint256));
        Auction storage a = _auctions[runId];
        if (a.bids == 0 || price < a.bestPrice) {
            a.bestPrice = price;
            a.bestReply = replyHash;
        }
        ++a.bids;
        emit BidAccepted(runId, replyHash, price);
        if (a.bids >= bidQuorum) _select(runId);
    }

    function _syncGate(bytes32 runId, bytes32 replyHash, uint8) internal override {
        bytes32[] memory prev = new bytes32[](1);
        prev[0] = replyHash;
        _complete(runId, prev);
    }

    /// @dev Timing out the Bid task closes the auction if there is a bid, re-opens it once if there is none,
    ///      then aborts; timing out the Execute task aborts.
    function _onTimeout(bytes32 runId, bytes32 taskHash) internal override {
        Auction storage a = _auctions[runId];
        if (_task(taskHash).stage != STAGE_BID) {
            _fail(runId); // abort
        } else if (a.bids > 0) {
            _select(runId); // pass
        } else if (a.retries < MAX_BID_RETRIES) {
            ++a.retries;
            _retry(runId, _task(taskHash).inputHash, new bytes32[](0)); // retry
        } else {
            _fail(runId); // abort
        }
    }

    function _select(bytes32 runId) private {
        Auction storage a = _auctions[runId];
        bytes32 win = a.bestReply;
        a.winner = _reply(win).replier;
        bytes32[] memory prev = new bytes32[](1);
        prev[0] = win;
        _transition(runId, STAGE_EXECUTE);
        _emitTask(runId, STAGE_EXECUTE, _reply(win).outputHash, "", _nextExpiry(runId), prev);
    }
}
