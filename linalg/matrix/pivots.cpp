// Pivots: LAPACK's ipiv in registered pieces of nb entries, one per panel of the tile LU.
#include <tessera/la/pivots.hpp>

#include <tessera/error.hpp>

#include <algorithm>
#include <string>

namespace tessera::inline la {

std::shared_ptr<Pivots::Storage> Pivots::make(rt::Runtime& rt, int64_t* data, int64_t count,
                                              int64_t nb)
{
    require(count >= 0, "Pivots: count = " + std::to_string(count) + " must be >= 0");
    require(nb >= 1, "Pivots: nb = " + std::to_string(nb) + " must be >= 1");
    auto s = std::make_shared<Storage>();
    s->rt = &rt;
    s->count = count;
    s->nb = nb;
    if (data) {
        s->data = data;
    } else {
        s->owned.assign(std::size_t(count), 0);
        s->data = s->owned.data();
    }
    for (int64_t first = 0; first < count; first += nb)
        s->pieces.emplace_back(rt,
                               rt::Vector<int64_t>{s->data + first, std::min(nb, count - first)});
    return s;
}

Pivots::Pivots(rt::Runtime& rt, int64_t count, int64_t nb) : s_(make(rt, nullptr, count, nb))
{}

Pivots Pivots::wrap(rt::Runtime& rt, int64_t* ipiv, int64_t count, int64_t nb)
{
    require(ipiv != nullptr || count <= 0, "Pivots::wrap: ipiv is a null pointer");
    Pivots p;
    p.s_ = make(rt, ipiv, count, nb);
    return p;
}

Pivots Pivots::copy_of(rt::Runtime& rt, int64_t const* ipiv, int64_t count, int64_t nb)
{
    require(ipiv != nullptr || count <= 0, "Pivots::copy_of: ipiv is a null pointer");
    Pivots p{rt, count, nb};
    std::copy(ipiv, ipiv + std::max<int64_t>(count, 0),
              p.s_->data);  // registered, no task yet: the host copy is valid
    return p;
}

Pivots::Piece& Pivots::piece(int64_t k)
{
    require(s_ && k >= 0 && k < pieces(), [&] {
        return "Pivots: piece " + std::to_string(k) + " out of range [0, " +
               std::to_string(pieces()) + ")";
    });
    return s_->pieces[std::size_t(k)];
}

Pivots::Piece const& Pivots::piece(int64_t k) const
{
    return const_cast<Pivots&>(*this).piece(k);
}

int64_t Pivots::operator[](int64_t i) const
{
    auto home = s_->pieces[std::size_t(i / s_->nb)].acquire<rt::Mode::R>();
    return s_->data[i];
}

int64_t const* Pivots::data() const
{
    if (!s_) return nullptr;
    for (Piece& p : s_->pieces) (void)p.acquire<rt::Mode::R>();  // a valid copy at home, kept there
    return s_->data;
}

rt::Runtime& Pivots::runtime() const
{
    require(s_ != nullptr, "Pivots: no runtime (a default-constructed Pivots)");
    return *s_->rt;
}

}  // namespace tessera::inline la
