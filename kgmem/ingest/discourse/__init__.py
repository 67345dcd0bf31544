"""The discourse layer under the extraction rules: what a clause does (asserts, negates,
wishes, asks...), which items a coordination lists, and who a chat role is."""
