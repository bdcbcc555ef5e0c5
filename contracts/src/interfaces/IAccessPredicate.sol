// SPDX-License-Identifier: CC0-1.0
pragma solidity ^0.8.24;

/// @notice A single machine-readable access requirement (ERC-8257 §1).
struct AccessRequirement {
    bytes4 kind;
    bytes data;
    string label;
}

/// @notice Boolean logic combining multiple requirements.
enum RequirementLogic {
    AND,
    OR
}

/// @title IAccessPredicate
/// @notice ERC-8257 tool access gate. ERC-165 interface ID: 0xbdf9dc18
interface IAccessPredicate {
    /// @notice Whether `account` has access to `toolId`.
    function hasAccess(uint256 toolId, address account, bytes calldata data) external view returns (bool);
    /// @notice Human-readable identifier of the predicate implementation (non-empty).
    function name() external view returns (string memory);
    /// @notice Machine-readable access requirements of a tool.
    function getRequirements(uint256 toolId)
        external
        view
        returns (AccessRequirement[] memory requirements, RequirementLogic logic);
}
