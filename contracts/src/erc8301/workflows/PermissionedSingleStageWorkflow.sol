// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {SingleStageWorkflow} from "./SingleStageWorkflow.sol";
import {AgentReply} from "../../interfaces/IAgentWorkflow.sol";
import {IIdentityRegistry} from "../../interfaces/IIdentityRegistry.sol";

/// @title PermissionedSingleStageWorkflow
/// @notice Scenario 0 restricted to agents of an ERC-8004 IdentityRegistry (ERC-8301 §Security:
///         "Permissioned implementations MAY ... integrate ERC-8004"). A replier first enrolls an agentId
///         it controls (as owner or agentWallet); every new reply re-checks that it still does.
contract PermissionedSingleStageWorkflow is SingleStageWorkflow {
    /// @notice Caller is neither the owner nor the agentWallet of the agent.
    error NotAgentController(uint256 agentId, address caller);
    /// @notice The replier is not (or no longer) an enrolled, controlling agent.
    error ReplierNotRegistered(address replier);

    /// @notice Emitted when a replier enrolls an agent.
    event ReplierEnrolled(address indexed replier, uint256 indexed agentId);

    /// @notice The identity registry consulted.
    IIdentityRegistry public immutable identityRegistry;
    mapping(address replier => uint256 agentIdPlusOne) private _enrolled;

    constructor(address verifier_, bool agentMode_, bytes memory metadata_, address identityRegistry_)
        SingleStageWorkflow(verifier_, agentMode_, metadata_)
    {
        identityRegistry = IIdentityRegistry(identityRegistry_);
    }

    /// @notice Enroll `agentId` for msg.sender, who must be its owner or agentWallet.
    function enroll(uint256 agentId) external {
        if (!_controls(msg.sender, agentId)) revert NotAgentController(agentId, msg.sender);
        _enrolled[msg.sender] = agentId + 1;
        emit ReplierEnrolled(msg.sender, agentId);
    }

    /// @notice The agent enrolled by `replier`, and whether it is enrolled.
    function enrolledAgent(address replier) external view returns (uint256 agentId, bool enrolled) {
        uint256 v = _enrolled[replier];
        return (v == 0 ? 0 : v - 1, v != 0);
    }

    function _checkReply(bytes32, AgentReply calldata reply) internal view override {
        uint256 v = _enrolled[reply.replier];
        if (v == 0 || !_controls(reply.replier, v - 1)) revert ReplierNotRegistered(reply.replier);
    }

    function _controls(address who, uint256 agentId) private view returns (bool) {
        return identityRegistry.ownerOf(agentId) == who || identityRegistry.getAgentWallet(agentId) == who;
    }
}
