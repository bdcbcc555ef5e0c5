// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {IAgentWorkflow, AgentTask, AgentReply, RunStatus} from "../interfaces/IAgentWorkflow.sol";
import {IAgentVerifier} from "../interfaces/IAgentVerifier.sol";
import {IAgentVerifiable} from "../interfaces/IAgentVerifiable.sol";
import {IProofVerifier} from "../interfaces/IProofVerifier.sol";

/// @title AgentWorkflow
/// @notice Abstract ERC-8301 workflow: anchoring, idempotency, eligibility, proofs and the evidence chain.
///         A concrete workflow supplies the FSM: its stages, which are sync, and the gates.
/// @dev Eligibility: every task belongs to the run's "round"; `_transition` starts a new round, which
///      makes every task of the previous round ineligible (completed / superseded). A task can also
///      be closed individually with `_closeTask` (consumed).
///      Proof encoding: for one replyHash the proof is passed to the verifier unchanged; for several,
///      `proof` is abi.encode(bytes[]) with one entry per replyHash, each verified separately.
abstract contract AgentWorkflow is IAgentWorkflow, IAgentVerifiable, ReentrancyGuardTransient {
    // ───────────────────────────── Errors ─────────────────────────────
    /// @notice reply.replier != msg.sender.
    error ReplierMismatch(address replier, address sender);
    /// @notice reply.operationId == 0.
    error ZeroOperationId();
    /// @notice operationId already bound to a different replyDigest.
    error OperationConflict(bytes32 operationKey);
    /// @notice reply.prevTaskHashes is empty.
    error EmptyPrevTaskHashes();
    /// @notice A referenced task is unknown.
    error UnknownTask(bytes32 taskHash);
    /// @notice A referenced task belongs to another run.
    error ForeignTask(bytes32 taskHash);
    /// @notice The run is not Pending (unknown, succeeded or failed).
    error RunNotPending(bytes32 workflowRunId);
    /// @notice The task is no longer eligible (completed, superseded or consumed).
    error TaskNotEligible(bytes32 taskHash);
    /// @notice reply.timestamp is not in (max anchor time, block.timestamp].
    error InvalidReplyTimestamp(uint256 timestamp);
    /// @notice A referenced task has expired.
    error TaskExpired(bytes32 taskHash);
    /// @notice The reply is unknown.
    error UnknownReply(bytes32 replyHash);
    /// @notice onAgentProve with an empty array.
    error EmptyReplyHashes();
    /// @notice The proof bytes do not decode to one proof per reply.
    error ProofCountMismatch();
    /// @notice The reply is already proven (the verifier is never called twice for it).
    error ReplyAlreadyProven(bytes32 replyHash);
    /// @notice The verifier rejected the proof; the reply may be proven again later.
    error ProofRejected(bytes32 replyHash);
    /// @notice No verifier is configured for the stage.
    error NoVerifier(uint8 stage);
    /// @notice keccak256(input) != inputHash for a non-empty input.
    error InputHashMismatch();
    /// @notice expiresAt is in the past.
    error InvalidExpiry(uint256 expiresAt);
    /// @notice replyTimeout before expiry (or with no expiry).
    error NotExpired(bytes32 taskHash);
    /// @notice `_complete` outside a sync gate: the final gate MUST be sync.
    error FinalGateMustBeSync();
    /// @notice The workflow emitted no initial task.
    error NoInitialTask();

    /// @notice Stage of the final task created at successful completion.
    uint8 public constant TERMINAL_STAGE = type(uint8).max;

    struct Run {
        RunStatus status;
        uint8 stage;
        bool exists;
        uint32 round;
        uint64 taskSeq;
        uint64 ttl;
        uint64 completedAt;
        bytes32 finalTaskHash;
    }

    struct TaskMeta {
        bool exists;
        bool closed;
        uint32 round;
        uint32 provenCount;
    }

    struct ReplyMeta {
        bool exists;
        bool proven;
        address verifier;
        uint64 anchoredAt;
        bytes32 verificationDigest;
    }

    struct Operation {
        bytes32 replyDigest;
        bytes32 replyHash;
    }

    /// @dev Private, monotonic, incremented only by run() (ERC-8301 §workflowRunId collision).
    uint256 private _runNonce;
    mapping(bytes32 runId => Run) private _runs;
    mapping(bytes32 taskHash => AgentTask) private _tasks;
    mapping(bytes32 taskHash => TaskMeta) private _taskMeta;
    mapping(bytes32 replyHash => AgentReply) private _replies;
    mapping(bytes32 replyHash => ReplyMeta) private _replyMeta;
    mapping(bytes32 operationKey => Operation) private _operations;
    mapping(bytes32 replyHash => bytes32[]) private _downstream;

    /// @dev Proof policy (deployment-time): verifier address, interface, and IProofVerifier metadata.
    address internal immutable _verifier;
    bool internal immutable _agentVerifierMode;
    bytes internal _verifierMetadata;

    /// @dev Set while a sync gate runs, so `_complete` can enforce "the final gate MUST be sync".
    bool private transient _inSyncGate;

    /// @param verifier_ IAgentVerifier (agentMode) or IProofVerifier used by onAgentProve.
    /// @param agentMode_ true: Option A (IAgentVerifier); false: Option B (IProofVerifier).
    /// @param metadata_ IProofVerifier metadata (ignored in agent mode).
    constructor(address verifier_, bool agentMode_, bytes memory metadata_) {
        _verifier = verifier_;
        _agentVerifierMode = agentMode_;
        _verifierMetadata = metadata_;
        // ERC-8274 §IAgentVerifiable: announce the (immutable) verifier; abi.encode(previous, new).
        emit AgentVerifierUpdated(abi.encode(address(0), verifier_));
    }

    /// @inheritdoc IAgentVerifiable
    /// @dev address(0) when the workflow uses an IProofVerifier (Option B) instead.
    function getAgentVerifier() external view returns (IAgentVerifier) {
        return IAgentVerifier(_agentVerifierMode ? _verifier : address(0));
    }

    // ───────────────────────────── Invocation ─────────────────────────────

    /// @inheritdoc IAgentWorkflow
    function run(bytes32 inputHash, bytes calldata input, uint256 expiresAt)
        external
        nonReentrant
        returns (bytes32 workflowRunId)
    {
        if (input.length != 0 && keccak256(input) != inputHash) revert InputHashMismatch();
        if (expiresAt != 0 && expiresAt <= block.timestamp) revert InvalidExpiry(expiresAt);
        uint256 nonce = _runNonce++;
        workflowRunId = keccak256(abi.encode(msg.sender, block.number, nonce));
        Run storage r = _runs[workflowRunId];
        r.exists = true;
        r.stage = _initialStage();
        if (expiresAt != 0) r.ttl = uint64(expiresAt - block.timestamp);
        _start(workflowRunId, inputHash, input, expiresAt);
        if (r.taskSeq == 0) revert NoInitialTask();
    }

    /// @inheritdoc IAgentWorkflow
    function result(bytes32 workflowRunId)
        external
        view
        returns (RunStatus status, bytes32 finalTaskHash, uint256 completedAt)
    {
        Run storage r = _runs[workflowRunId];
        return (r.status, r.finalTaskHash, r.completedAt);
    }

    // ───────────────────────────── Queries ─────────────────────────────

    /// @inheritdoc IAgentWorkflow
    function getAgentTask(bytes32 taskHash) public view returns (AgentTask memory task, bool proven) {
        TaskMeta storage m = _taskMeta[taskHash];
        if (!m.exists) revert UnknownTask(taskHash);
        task = _tasks[taskHash];
        proven = m.provenCount == task.prevReplyHashes.length;
    }

    /// @inheritdoc IAgentWorkflow
    function getAgentReply(bytes32 replyHash)
        external
        view
        returns (AgentReply memory reply, address verifier, bool proven, bytes32 verificationDigest)
    {
        ReplyMeta storage m = _replyMeta[replyHash];
        if (!m.exists) revert UnknownReply(replyHash);
        return (_replies[replyHash], m.verifier, m.proven, m.verificationDigest);
    }

    /// @inheritdoc IAgentWorkflow
    function getReplyHashByOperation(bytes32 workflowRunId, address replier, bytes32 operationId)
        external
        view
        returns (bytes32)
    {
        return _operations[operationKeyOf(workflowRunId, replier, operationId)].replyHash;
    }

    /// @notice The stage the run is in.
    function currentStage(bytes32 workflowRunId) external view returns (uint8) {
        return _runs[workflowRunId].stage;
    }

    /// @notice block.timestamp at which the task was emitted (written only by this contract).
    function taskAnchorTime(bytes32 taskHash) external view returns (uint256) {
        return _tasks[taskHash].timestamp;
    }

    /// @notice block.timestamp at which the reply was anchored.
    function replyAnchorTime(bytes32 replyHash) external view returns (uint256) {
        return _replyMeta[replyHash].anchoredAt;
    }

    /// @notice Whether the task can still receive a new reply.
    function isTaskEligible(bytes32 taskHash) public view returns (bool) {
        TaskMeta storage m = _taskMeta[taskHash];
        if (!m.exists || m.closed) return false;
        Run storage r = _runs[_tasks[taskHash].workflowRunId];
        return r.status == RunStatus.Pending && m.round == r.round;
    }

    /// @notice The proof verifier and whether it is used as IAgentVerifier.
    function proofPolicy() external view returns (address verifier, bool agentVerifierMode) {
        return (_verifier, _agentVerifierMode);
    }

    // ───────────────────────────── Hash formulas ─────────────────────────────

    /// @notice taskHash per ERC-8301 (input plaintext excluded; keccak256("") for an empty array).
    function taskHashOf(AgentTask memory t) public pure returns (bytes32) {
        return keccak256(
            abi.encode(
                t.stage,
                t.taskSeq,
                t.inputHash,
                t.timestamp,
                t.expiresAt,
                keccak256(abi.encodePacked(t.prevReplyHashes)),
                t.workflowRunId
            )
        );
    }

    /// @notice replyHash per ERC-8301 (with operationId).
    function replyHashOf(AgentReply memory r) public pure returns (bytes32) {
        return keccak256(
            abi.encode(
                r.operationId,
                r.outputHash,
                r.timestamp,
                r.replier,
                keccak256(abi.encodePacked(r.prevTaskHashes)),
                r.workflowRunId
            )
        );
    }

    /// @notice operationKey per ERC-8301: scoped to (run, replier, operationId).
    function operationKeyOf(bytes32 workflowRunId, address replier, bytes32 operationId) public pure returns (bytes32) {
        return keccak256(abi.encode(workflowRunId, replier, operationId));
    }

    /// @notice replyDigest per ERC-8301 (timestamp excluded).
    function replyDigestOf(AgentReply memory r) public pure returns (bytes32) {
        return
            keccak256(
                abi.encode(r.outputHash, r.replier, keccak256(abi.encodePacked(r.prevTaskHashes)), r.workflowRunId)
            );
    }

    // ───────────────────────────── Agent callbacks ─────────────────────────────

    /// @inheritdoc IAgentWorkflow
    function onAgentReply(AgentReply calldata reply) external nonReentrant returns (bytes32 replyHash) {
        // 1. Replier and operation identity, looked up before any other check or effect.
        if (reply.replier != msg.sender) revert ReplierMismatch(reply.replier, msg.sender);
        if (reply.operationId == bytes32(0)) revert ZeroOperationId();
        bytes32 opKey = operationKeyOf(reply.workflowRunId, reply.replier, reply.operationId);
        bytes32 digest = replyDigestOf(reply);
        Operation storage op = _operations[opKey];
        if (op.replyHash != bytes32(0)) {
            // Logical retry: canonical hash, no store, no event, no gate.
            if (op.replyDigest == digest) return op.replyHash;
            revert OperationConflict(opKey);
        }

        // 2. prevTaskHashes validity: known tasks of this run.
        uint256 n = reply.prevTaskHashes.length;
        if (n == 0) revert EmptyPrevTaskHashes();
        for (uint256 i; i < n; ++i) {
            bytes32 th = reply.prevTaskHashes[i];
            if (!_taskMeta[th].exists) revert UnknownTask(th);
            if (_tasks[th].workflowRunId != reply.workflowRunId) revert ForeignTask(th);
        }
        // 3. Run eligibility, then task eligibility under the current FSM stage / round.
        Run storage r = _runs[reply.workflowRunId];
        if (!r.exists || r.status != RunStatus.Pending) revert RunNotPending(reply.workflowRunId);
        uint256 maxAnchor;
        for (uint256 i; i < n; ++i) {
            bytes32 th = reply.prevTaskHashes[i];
            TaskMeta storage m = _taskMeta[th];
            if (m.closed || m.round != r.round) revert TaskNotEligible(th);
            AgentTask storage t = _tasks[th];
            // 4. Expiry.
            uint256 exp = t.expiresAt;
            if (exp != 0 && block.timestamp > exp) revert TaskExpired(th);
            if (t.timestamp > maxAnchor) maxAnchor = t.timestamp;
        }
        // 4. max(anchor_time) < reply.timestamp <= block.timestamp.
        if (reply.timestamp <= maxAnchor || reply.timestamp > block.timestamp) {
            revert InvalidReplyTimestamp(reply.timestamp);
        }
        _checkReply(reply.workflowRunId, reply);

        // 5. Bind, store, anchor — before events, gates or external calls.
        replyHash = replyHashOf(reply);
        op.replyDigest = digest;
        op.replyHash = replyHash;
        _replies[replyHash] = reply;
        ReplyMeta storage rm = _replyMeta[replyHash];
        rm.exists = true;
        rm.anchoredAt = uint64(block.timestamp);
        emit AgentReplyAnchored(reply.workflowRunId, replyHash, msg.sender);

        // 6. Async gate.
        uint8 stage = _tasks[reply.prevTaskHashes[0]].stage;
        if (!_isSyncStage(stage)) _asyncGate(reply.workflowRunId, replyHash, stage);
    }

    /// @inheritdoc IAgentWorkflow
    function onAgentProve(bytes32[] calldata replyHashes, bytes calldata proof) external nonReentrant {
        uint256 n = replyHashes.length;
        if (n == 0) revert EmptyReplyHashes();
        bytes[] memory proofs;
        if (n == 1) {
            proofs = new bytes[](1);
            proofs[0] = proof;
        } else {
            proofs = abi.decode(proof, (bytes[]));
            if (proofs.length != n) revert ProofCountMismatch();
        }
        for (uint256 i; i < n; ++i) {
            _prove(replyHashes[i], proofs[i]);
        }
        // Sync gates, once every listed reply is proven.
        for (uint256 i; i < n; ++i) {
            AgentReply storage rep = _replies[replyHashes[i]];
            bytes32 runId = rep.workflowRunId;
            Run storage r = _runs[runId];
            if (r.status != RunStatus.Pending) continue;
            bytes32 primary = rep.prevTaskHashes[0];
            uint8 stage = _tasks[primary].stage;
            if (stage != r.stage || _taskMeta[primary].round != r.round || !_isSyncStage(stage)) continue;
            _inSyncGate = true;
            _syncGate(runId, replyHashes[i], stage);
            _inSyncGate = false;
        }
    }

    /// @notice Anyone may time out an expired, still eligible task: the workflow retries or aborts.
    /// @param taskHash The expired task.
    function replyTimeout(bytes32 taskHash) external nonReentrant {
        TaskMeta storage m = _taskMeta[taskHash];
        if (!m.exists) revert UnknownTask(taskHash);
        AgentTask storage t = _tasks[taskHash];
        bytes32 runId = t.workflowRunId;
        Run storage r = _runs[runId];
        if (r.status != RunStatus.Pending) revert RunNotPending(runId);
        if (m.closed || m.round != r.round) revert TaskNotEligible(taskHash);
        if (t.expiresAt == 0 || block.timestamp <= t.expiresAt) revert NotExpired(taskHash);
        _onTimeout(runId, taskHash);
    }

    // ───────────────────────────── Hooks for concrete workflows ─────────────────────────────

    /// @dev Stage the run starts in.
    function _initialStage() internal view virtual returns (uint8) {
        return 0;
    }

    /// @dev Emit the initial task(s). MUST emit at least one.
    function _start(bytes32 runId, bytes32 inputHash, bytes calldata input, uint256 expiresAt) internal virtual;

    /// @dev Whether `stage` is gated after onAgentProve (sync) instead of after onAgentReply (async).
    function _isSyncStage(uint8 stage) internal view virtual returns (bool);

    /// @dev Async gate: pass (transition + tasks), retry (`_retry`), abort (`_fail`) or silent (nothing).
    function _asyncGate(bytes32 runId, bytes32 replyHash, uint8 stage) internal virtual {}

    /// @dev Sync gate, run after the reply was proven: same outcomes, plus `_complete`.
    function _syncGate(bytes32 runId, bytes32 replyHash, uint8 stage) internal virtual {}

    /// @dev Extra admission rules for a new reply (permissioned variants, selected winners). Revert to reject.
    function _checkReply(bytes32 runId, AgentReply calldata reply) internal view virtual {}

    /// @dev Timeout policy. Default: abort the run.
    function _onTimeout(bytes32 runId, bytes32 taskHash) internal virtual {
        taskHash;
        _fail(runId);
    }

    // ───────────────────────────── Helpers ─────────────────────────────

    /// @dev Move the FSM to `stage` and open a new round (tasks of earlier rounds become ineligible).
    ///      Called before the next NewAgentTask is emitted.
    function _transition(bytes32 runId, uint8 stage) internal {
        Run storage r = _runs[runId];
        r.stage = stage;
        ++r.round;
    }

    /// @dev Close one task (consumed).
    function _closeTask(bytes32 taskHash) internal {
        _taskMeta[taskHash].closed = true;
    }

    /// @dev Expiry for a task emitted now: the run's time-to-live from now, or 0 for "no expiry".
    function _nextExpiry(bytes32 runId) internal view returns (uint256) {
        uint64 ttl = _runs[runId].ttl;
        return ttl == 0 ? 0 : block.timestamp + ttl;
    }

    /// @dev Store and emit a task of the current round; its anchor time is block.timestamp.
    function _emitTask(
        bytes32 runId,
        uint8 stage,
        bytes32 inputHash,
        bytes memory input,
        uint256 expiresAt,
        bytes32[] memory prevReplyHashes
    ) internal returns (bytes32 taskHash) {
        taskHash = _storeTask(runId, stage, inputHash, input, expiresAt, prevReplyHashes);
        emit NewAgentTask(runId, stage, taskHash);
    }

    /// @dev Retry: re-emit a task of the same stage (new taskSeq) in a new round.
    function _retry(bytes32 runId, bytes32 inputHash, bytes32[] memory prevReplyHashes)
        internal
        returns (bytes32 taskHash)
    {
        uint8 stage = _runs[runId].stage;
        _transition(runId, stage);
        taskHash = _emitTask(runId, stage, inputHash, "", _nextExpiry(runId), prevReplyHashes);
    }

    /// @dev Abort: WorkflowCompleted(Failed, 0, now). completedAt stays 0 (result() reports it for Success only).
    function _fail(bytes32 runId) internal {
        Run storage r = _runs[runId];
        r.status = RunStatus.Failed;
        emit WorkflowCompleted(runId, RunStatus.Failed, bytes32(0), block.timestamp);
    }

    /// @dev Success: store the final task (terminal sentinel stage, inputHash 0, no NewAgentTask),
    ///      persist completedAt, emit WorkflowCompleted. Only callable from a sync gate.
    function _complete(bytes32 runId, bytes32[] memory terminalReplyHashes) internal returns (bytes32 finalTaskHash) {
        if (!_inSyncGate) revert FinalGateMustBeSync();
        finalTaskHash = _storeTask(runId, TERMINAL_STAGE, bytes32(0), "", 0, terminalReplyHashes);
        Run storage r = _runs[runId];
        r.status = RunStatus.Success;
        r.stage = TERMINAL_STAGE;
        r.finalTaskHash = finalTaskHash;
        r.completedAt = uint64(block.timestamp);
        emit WorkflowCompleted(runId, RunStatus.Success, finalTaskHash, block.timestamp);
    }

    /// @dev Read access for concrete workflows.
    function _reply(bytes32 replyHash) internal view returns (AgentReply storage) {
        return _replies[replyHash];
    }

    /// @dev Read access for concrete workflows.
    function _task(bytes32 taskHash) internal view returns (AgentTask storage) {
        return _tasks[taskHash];
    }

    /// @dev Whether a reply is proven.
    function _isProven(bytes32 replyHash) internal view returns (bool) {
        return _replyMeta[replyHash].proven;
    }

    // ───────────────────────────── Internals ─────────────────────────────

    function _storeTask(
        bytes32 runId,
        uint8 stage,
        bytes32 inputHash,
        bytes memory input,
        uint256 expiresAt,
        bytes32[] memory prevReplyHashes
    ) private returns (bytes32 taskHash) {
        Run storage r = _runs[runId];
        uint256 seq = r.taskSeq++;
        AgentTask memory t = AgentTask({
            stage: stage,
            taskSeq: seq,
            inputHash: inputHash,
            input: input,
            timestamp: block.timestamp,
            expiresAt: expiresAt,
            prevReplyHashes: prevReplyHashes,
            workflowRunId: runId
        });
        taskHash = taskHashOf(t);
        _tasks[taskHash] = t;
        uint32 provenCount;
        for (uint256 i; i < prevReplyHashes.length; ++i) {
            bytes32 rh = prevReplyHashes[i];
            if (_replyMeta[rh].proven) ++provenCount;
            _downstream[rh].push(taskHash);
        }
        _taskMeta[taskHash] = TaskMeta({exists: true, closed: false, round: r.round, provenCount: provenCount});
    }

    function _prove(bytes32 replyHash, bytes memory proof) private {
        ReplyMeta storage rm = _replyMeta[replyHash];
        if (!rm.exists) revert UnknownReply(replyHash);
        if (rm.proven) revert ReplyAlreadyProven(replyHash);
        AgentReply storage rep = _replies[replyHash];
        bytes32 runId = rep.workflowRunId;
        if (_runs[runId].status != RunStatus.Pending) revert RunNotPending(runId);
        // inputHash derived from on-chain task data, never from the caller.
        AgentTask storage primary = _tasks[rep.prevTaskHashes[0]];
        (address verifier, bool agentMode) = _verifierFor(primary.stage);
        if (verifier == address(0)) revert NoVerifier(primary.stage);
        bool valid;
        bytes32 vDigest;
        if (agentMode) {
            (valid, vDigest) = IAgentVerifier(verifier)
                .verify(runId, bytes32(uint256(uint160(rep.replier))), primary.inputHash, rep.outputHash, proof);
        } else {
            valid = IProofVerifier(verifier).verify(primary.inputHash, rep.outputHash, _verifierMetadata, proof);
        }
        // A failed proof changes nothing: the reply can be proven later (griefing resistance).
        if (!valid) revert ProofRejected(replyHash);
        rm.proven = true;
        rm.verifier = verifier;
        rm.verificationDigest = vDigest;
        // Propagate proven status to downstream tasks.
        bytes32[] storage ds = _downstream[replyHash];
        for (uint256 i; i < ds.length; ++i) {
            ++_taskMeta[ds[i]].provenCount;
        }
    }

    /// @dev Proof policy per stage; default: the deployment-wide verifier.
    function _verifierFor(uint8 stage) internal view virtual returns (address verifier, bool agentMode) {
        stage;
        return (_verifier, _agentVerifierMode);
    }
}
