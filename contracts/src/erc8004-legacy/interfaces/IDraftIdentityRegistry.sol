// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title IDraftIdentityRegistry
/// @notice Identity Registry of the ERC-8004 first draft (ethereum/ERCs d30865a, 2025-08-18):
///         agents are (AgentID, AgentDomain, AgentAddress) tuples.
/// @dev The draft names the endpoints New/Update/Get/ResolveByDomain/ResolveByAddress without code;
///      the Solidity names, the AgentInfo return tuple and the two events follow the draft's
///      reference implementation (ChaosChain/trustless-agents-erc-ri 1d9bbfa). See contracts/README.md.
interface IDraftIdentityRegistry {
    /// @notice One registered agent. Returned as a tuple (uint256,string,address).
    struct AgentInfo {
        uint256 agentId;
        string agentDomain;
        address agentAddress;
    }

    /// @notice A new agent was registered (New).
    event AgentRegistered(uint256 indexed agentId, string agentDomain, address agentAddress);
    /// @notice An agent's domain and/or address changed (Update); carries the values after the update.
    event AgentUpdated(uint256 indexed agentId, string agentDomain, address agentAddress);

    /// @notice New(AgentDomain, AgentAddress) → AgentID. The caller MUST be `agentAddress`.
    function newAgent(string calldata agentDomain, address agentAddress) external returns (uint256 agentId);

    /// @notice Update(AgentID, Optional NewAgentDomain, Optional NewAgentAddress) → Boolean.
    ///         An empty domain or the zero address leaves that field unchanged. The caller MUST be
    ///         the agent's current address.
    function updateAgent(uint256 agentId, string calldata newAgentDomain, address newAgentAddress)
        external
        returns (bool success);

    /// @notice Get(AgentID) → AgentID, AgentDomain, AgentAddress. Reverts for an unknown agent.
    function getAgent(uint256 agentId) external view returns (AgentInfo memory agentInfo);

    /// @notice ResolveByDomain(AgentDomain) → AgentID, AgentDomain, AgentAddress (ASCII case-insensitive).
    function resolveByDomain(string calldata agentDomain) external view returns (AgentInfo memory agentInfo);

    /// @notice ResolveByAddress(AgentAddress) → AgentID, AgentDomain, AgentAddress.
    function resolveByAddress(address agentAddress) external view returns (AgentInfo memory agentInfo);

    /// @notice Number of agents registered so far (agent ids are 1..count).
    function getAgentCount() external view returns (uint256 count);

    /// @notice Whether `agentId` was registered.
    function agentExists(uint256 agentId) external view returns (bool exists);
}
