// A listing's sample outputs before it is published. The review endpoints name a pending listing by id
// only, and the catalogue (which returns `sample_output`) shows a listing once it is approved; so the
// review console derives the samples from the public metadata with the registration's own validator:
// the output schema's `examples` (the first three), or, when it has none, the one example generated
// from the schema. That is the code that computed the listing's `sample_output` at registration, so
// the reviewer sees what renters will see, generated samples included.
import { validateManifest } from "@agent-rental/core/manifest";
import type { ListingMetadata } from "@agent-rental/sdk";

/** The samples the catalogue will show for this metadata, or null if the validator refuses it. */
export function sampleOutputsOf(metadata: ListingMetadata): string[] | null {
  // The validator checks a whole manifest; the model and prompt are not public and play no part in
  // the samples, so neutral stand-ins complete it.
  const result = validateManifest(
    {
      name: metadata.name,
      category: metadata.category,
      description: metadata.description,
      model: { provider: "provider_a", model: "review" },
      system_prompt: "review",
      input_schema: metadata.input_schema,
      output_schema: metadata.output_schema,
    },
    { allowPrivateHosts: true },
  );
  return result.ok ? (result.manifest.sample_output ?? []) : null;
}
