// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IDraftIdentityRegistry} from "./interfaces/IDraftIdentityRegistry.sol";

/// @title DraftIdentityRegistry
/// @notice ERC-8004 first draft Identity Registry: one (AgentID, AgentDomain, AgentAddress) per agent,
///         resolvable by any of the three.
/// @dev Agent ids start at 1 so that 0 means "none" in the reverse maps. Domains are compared
///      ASCII case-insensitively (DNS names are, RFC 4343) but stored as given. Both the domain and
///      the address are unique across agents, since ResolveByDomain / ResolveByAddress return one agent.
contract DraftIdentityRegistry is IDraftIdentityRegistry {
    /// @notice The caller is not the AgentAddress the write is about.
    error UnauthorizedCaller(address caller, address agentAddress);
    /// @notice No agent has this id / domain / address.
    error AgentNotFound();
    /// @notice The domain is empty.
    error InvalidDomain();
    /// @notice The agent address is the zero address.
    error InvalidAddress();
    /// @notice Another agent already holds this domain (case-insensitively).
    error DomainAlreadyRegistered(string agentDomain);
    /// @notice Another agent already holds this address.
    error AddressAlreadyRegistered(address agentAddress);

    mapping(uint256 agentId => AgentInfo) private _agents;
    mapping(bytes32 domainKey => uint256 agentId) private _byDomain;
    mapping(address agentAddress => uint256 agentId) private _byAddress;
    uint256 private _count;

    /// @inheritdoc IDraftIdentityRegistry
    function newAgent(string calldata agentDomain, address agentAddress) external returns (uint256 agentId) {
        // ERC-8004 first draft §Identity Registry: all write operations require the sender to be AgentAddress.
        if (msg.sender != agentAddress) revert UnauthorizedCaller(msg.sender, agentAddress);
        if (agentAddress == address(0)) revert InvalidAddress();
        if (bytes(agentDomain).length == 0) revert InvalidDomain();
        bytes32 key = _domainKey(agentDomain);
        if (_byDomain[key] != 0) revert DomainAlreadyRegistered(agentDomain);
        if (_byAddress[agentAddress] != 0) revert AddressAlreadyRegistered(agentAddress);

        // ERC-8004 first draft §Identity Registry: AgentID is assigned incrementally by the registry.
        agentId = ++_count;
        _agents[agentId] = AgentInfo(agentId, agentDomain, agentAddress);
        _byDomain[key] = agentId;
        _byAddress[agentAddress] = agentId;
        emit AgentRegistered(agentId, agentDomain, agentAddress);
    }

    /// @inheritdoc IDraftIdentityRegistry
    function updateAgent(uint256 agentId, string calldata newAgentDomain, address newAgentAddress)
        external
        returns (bool success)
    {
        AgentInfo storage agent = _agents[agentId];
        address current = agent.agentAddress;
        if (current == address(0)) revert AgentNotFound();
        // ERC-8004 first draft §Identity Registry: all write operations require the sender to be AgentAddress.
        if (msg.sender != current) revert UnauthorizedCaller(msg.sender, current);

        // Optional arguments: an empty domain / the zero address keeps the current value.
        if (bytes(newAgentDomain).length != 0) {
            bytes32 key = _domainKey(newAgentDomain);
            uint256 holder = _byDomain[key];
            if (holder != 0 && holder != agentId) revert DomainAlreadyRegistered(newAgentDomain);
            delete _byDomain[_domainKey(agent.agentDomain)];
            _byDomain[key] = agentId;
            agent.agentDomain = newAgentDomain;
        }
        if (newAgentAddress != address(0) && newAgentAddress != current) {
            if (_byAddress[newAgentAddress] != 0) revert AddressAlreadyRegistered(newAgentAddress);
            delete _byAddress[current];
            _byAddress[newAgentAddress] = agentId;
            agent.agentAddress = newAgentAddress;
        }
        emit AgentUpdated(agentId, agent.agentDomain, agent.agentAddress);
        return true;
    }

    /// @inheritdoc IDraftIdentityRegistry
    function getAgent(uint256 agentId) external view returns (AgentInfo memory agentInfo) {
        return _get(agentId);
    }

    /// @inheritdoc IDraftIdentityRegistry
    function resolveByDomain(string calldata agentDomain) external view returns (AgentInfo memory agentInfo) {
        return _get(_byDomain[_domainKey(agentDomain)]);
    }

    /// @inheritdoc IDraftIdentityRegistry
    function resolveByAddress(address agentAddress) external view returns (AgentInfo memory agentInfo) {
        return _get(_byAddress[agentAddress]);
    }

    /// @inheritdoc IDraftIdentityRegistry
    function getAgentCount() external view returns (uint256 count) {
        return _count;
    }

    /// @inheritdoc IDraftIdentityRegistry
    function agentExists(uint256 agentId) external view returns (bool exists) {
        return _agents[agentId].agentAddress != address(0);
    }

    function _get(uint256 agentId) private view returns (AgentInfo memory agentInfo) {
        agentInfo = _agents[agentId];
        if (agentInfo.agentAddress == address(0)) revert AgentNotFound();
    }

    /// @dev keccak256 of the domain with ASCII A-Z folded to a-z.
    function _domainKey(string memory domain) private pure returns (bytes32) {
        bytes memory b = bytes(domain);
        bytes memory folded = new bytes(b.length);
        for (uint256 i; i < b.length; ++i) {
            bytes1 c = b[i];
            folded[i] = (c >= "A" && c <= "Z") ? bytes1(uint8(c) + 32) : c;
        }
        return keccak256(folded);
    }
}
