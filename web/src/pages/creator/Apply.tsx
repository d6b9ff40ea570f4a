import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { useClient } from "../../api/hooks.ts";
import { ErrorNote } from "../../ui/notices.tsx";

export function Apply({ onApplied, again = false }: { onApplied: () => void; again?: boolean }) {
  const client = useClient();
  const [name, setName] = useState("");
  const apply = useMutation({ mutationFn: () => client.creators.apply(name.trim()), onSuccess: onApplied });
  return (
    <form
      className="stack"
      style={{ maxWidth: 480 }}
      onSubmit={(e) => {
        e.preventDefault();
        apply.mutate();
      }}
    >
      <p className="muted">{again ? "Apply again once you have addressed the reason." : "During the beta, creators are reviewed before they list agents."}</p>
      <div className="field">
        <label htmlFor="display-name">Display name</label>
        <input id="display-name" required maxLength={64} value={name} onChange={(e) => setName(e.target.value)} aria-describedby="display-name-hint" />
        <span className="hint" id="display-name-hint">Shown on your listings.</span>
      </div>
      {apply.error ? <ErrorNote error={apply.error} /> : null}
      <div>
        <button className="btn btn-primary" type="submit" disabled={!name.trim() || apply.isPending}>
          {again ? "Apply again" : "Apply as a creator"}
        </button>
      </div>
    </form>
  );
}
