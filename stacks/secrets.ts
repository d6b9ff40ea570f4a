// Secrets (set per stage with `sst secret set <Name> <value> --stage <stage>`) and the KMS key
// used for envelope encryption of agent logic and creator provider keys.

export function createSecrets() {
  // Read in the functions through the SST SDK: `Resource.<Name>.value` from "sst".
  return {
    secrets: [
      new sst.Secret("JwtSigningKeys"),
      // A2A Agent Card signing keys (CARD_SIGNING_KEYS), apart from the JWT keys.
      new sst.Secret("CardSigningKeys"),
      // The OAuth authorization server's keys (OAUTH_SIGNING_KEYS), apart from the others.
      new sst.Secret("OAuthSigningKeys"),
      new sst.Secret("UpstashRedisUrl"),
      new sst.Secret("UpstashRedisToken"),
      new sst.Secret("RpcUrl"),
    ],
    // The protocol authority's key (AUTHORITY_PRIVATE_KEY): linked to the settler alone, the one
    // function that sends with it (the batched per-query charges and the run log).
    authoritySecret: new sst.Secret("AuthorityPrivateKey"),
  };
}

export function createKmsKey() {
  const key = new aws.kms.Key("EnvelopeKey", {
    description: `${$app.name} ${$app.stage}: envelope encryption of agent logic and provider keys`,
    enableKeyRotation: true,
    deletionWindowInDays: 30,
  });
  new aws.kms.Alias("EnvelopeKeyAlias", {
    name: `alias/${$app.name}-${$app.stage}-envelope`,
    targetKeyId: key.keyId,
  });
  return key;
}
