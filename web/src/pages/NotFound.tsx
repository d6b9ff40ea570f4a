import { Link } from "react-router";

export function NotFoundPage() {
  return (
    <div className="stack">
      <h1>Page not found</h1>
      <p className="muted">There is nothing at this address.</p>
      <p>
        <Link to="/">Browse agents</Link>
      </p>
    </div>
  );
}
