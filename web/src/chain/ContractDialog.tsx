// A confirmation dialog that sends one marketplace transaction: a trigger button, what the transaction
// does, its progress (FlowStatus), and Cancel beside the confirming button until it is confirmed (then
// Close). Closing the dialog resets a flow that has started, so it opens fresh next time.
import type { ReactNode } from "react";
import * as AlertDialog from "@radix-ui/react-alert-dialog";
import { FlowStatus } from "./FlowStatus.tsx";
import { useContractFlow, type Writable, type WriteRequest } from "./useContractFlow.ts";

export function ContractDialog<F extends Writable>(props: {
  /** The trigger button's label. */
  trigger: string;
  title: string;
  description: ReactNode;
  /** More words under the description. */
  children?: ReactNode;
  /** The confirming button's label. */
  confirm: string;
  request: WriteRequest<F>;
  open: boolean;
  onOpenChange(open: boolean): void;
  /** Called once the transaction is confirmed. */
  onDone(): void;
}) {
  const { trigger, title, description, children, confirm, request, open, onOpenChange, onDone } = props;
  const flow = useContractFlow();
  return (
    <AlertDialog.Root
      open={open}
      onOpenChange={(o) => {
        if (!o && flow.state.step !== "idle") flow.reset();
        onOpenChange(o);
      }}
    >
      <AlertDialog.Trigger asChild>
        <button className="btn btn-small">{trigger}</button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content className="dialog stack">
          <AlertDialog.Title>{title}</AlertDialog.Title>
          <AlertDialog.Description>{description}</AlertDialog.Description>
          {children}
          <FlowStatus state={flow.state} />
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <AlertDialog.Cancel asChild>
              <button className="btn">{flow.state.step === "confirmed" ? "Close" : "Cancel"}</button>
            </AlertDialog.Cancel>
            {flow.state.step !== "confirmed" ? (
              <button className="btn btn-danger" disabled={flow.busy} onClick={() => void flow.run(request).then((hash) => hash && onDone())}>
                {confirm}
              </button>
            ) : null}
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
