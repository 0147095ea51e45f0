import { Link } from '@tanstack/react-router';
import { messages } from '@/lib/messages';

export function NotFound() {
  return (
    <main className="centered-screen" aria-labelledby="not-found-title">
      <h1 id="not-found-title">{messages.notFound}</h1>
      <p>There is no page at this address.</p>
      <Link to="/login" search={{}} className="button">
        Go to Murmur
      </Link>
    </main>
  );
}
