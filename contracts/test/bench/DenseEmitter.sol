// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// A dense benchmark chain's traffic (bench/index/dense_anvil.sh): one call emits a block's worth
/// of ERC-8004 events with their exact signatures (IReputationRegistry.NewFeedback,
/// IIdentityRegistry.Registered), as a busy registry would. Deployed only on benchmark chains.
contract DenseEmitter {
    event NewFeedback(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        int128 value,
        uint8 valueDecimals,
        string indexed indexedTag1,
        string tag1,
        string tag2,
        string endpoint,
        string feedbackURI,
        bytes32 feedbackHash
    );
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);

    string private constant FEEDBACK_URI =
        "https://feedback.example.com/files/0x9c22ff5f21f0b81b113e63f7db6da94fedef11b2119b4088b89664fb9a3cb658.json";

    /// `feedbacks` NewFeedback of agents firstAgent.. (one each, so every (agent, client, index) is
    /// new), then `registrations` Registered.
    function emitBlock(uint256 firstAgent, uint256 feedbacks, uint256 registrations) external {
        for (uint256 i = 0; i < feedbacks; ++i) {
            emit NewFeedback(
                firstAgent + i,
                msg.sender,
                1,
                int128(int256(80 + (i % 20))),
                0,
                "quality",
                "quality",
                "latency",
                "https://agent.example.com/mcp",
                FEEDBACK_URI,
                keccak256(abi.encode(firstAgent + i))
            );
        }
        for (uint256 i = 0; i < registrations; ++i) {
            emit Registered(firstAgent + i, "https://agents.example.com/agent.json", msg.sender);
        }
    }
}
