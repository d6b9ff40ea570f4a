// The rental models as a select's options, each named as the dashboard names it.
import { MODEL_LABEL } from "./format.ts";

export function RentalModelOptions() {
  return (
    <>
      {Object.entries(MODEL_LABEL).map(([v, l]) => (
        <option key={v} value={v}>
          {l}
        </option>
      ))}
    </>
  );
}
